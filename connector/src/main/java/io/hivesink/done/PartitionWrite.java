package io.hivesink.done;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.hive.metastore.api.Partition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.PartitionMove;
import io.hivesink.table.HivePaths;
import io.hivesink.table.PartitionValues;

/**
 * Writes the done marker's parameters onto Hive partitions without putting back a location a compaction moved them
 * from ({@code docs/compaction.md}). {@code alter_partitions} writes a partition whole, and no metastore compares it
 * first, so a write built on a partition read before a compaction's swap would undo the swap, and every batch landed
 * in the new location since would vanish from queries. So:
 * <ol>
 *   <li>each partition is read again just before the write, and only the marker's own parameters are set on what was
 *       read;</li>
 *   <li>after the write, of a compacted table, each partition that a compaction held in this task's state has moved is
 *       put back at its new location if the write found it at the old one. The compaction writes its hold into every
 *       task's state before its swap, and only this task removes it, once its writers know the move: a write that
 *       lands after the swap finds the hold.</li>
 * </ol>
 */
final class PartitionWrite {

    private static final Logger log = LoggerFactory.getLogger(PartitionWrite.class);
    /** The parameters the marker owns: the only ones its writes set or remove. */
    private static final List<String> OWN = List.of(PartitionMarker.DONE_TIME, PartitionMarker.DONE_WATERMARK,
            PartitionMarker.DONE_RECORDS, PartitionMarker.DONE_FILES, PartitionMarker.LATE_RECORDS);

    private final Metastore metastore;
    private final PartitionMoves moves;

    PartitionWrite(Metastore metastore, PartitionMoves moves) {
        this.metastore = metastore;
        this.moves = moves;
    }

    /**
     * Writes the marker's parameters of each partition in {@code wanted} (as set on it) onto the partition as it is
     * now; a partition dropped meanwhile is left dropped.
     */
    void write(PartitionMarker.TimeTable table, List<Partition> wanted) {
        if (wanted.isEmpty()) {
            return;
        }
        Map<String, Partition> byName = new LinkedHashMap<>();
        for (Partition partition : wanted) {
            byName.put(nameOf(table, partition), partition);
        }
        // 1. read again just before the write: its location is the one it has now
        List<Partition> fresh = new ArrayList<>();
        for (Partition now : metastore.partitionsByNames(table.database(), table.name(),
                List.copyOf(byName.keySet()))) {
            Partition from = byName.get(nameOf(table, now));
            if (from != null) {
                Partition written = now.deepCopy();
                written.setParameters(withOwn(now.getParameters(), from.getParameters()));
                fresh.add(written);
            }
        }
        metastore.alterPartitions(table.database(), table.name(), fresh);
        if (table.compacted()) {
            restoreMoves(table, fresh); // 2.
        }
    }

    private void restoreMoves(PartitionMarker.TimeTable table, List<Partition> written) {
        for (Partition partition : written) {
            String name = nameOf(table, partition);
            PartitionMoves.Move move = moves.of(table.name(), name);
            if (move == null || !HivePaths.sameDir(partition.getSd().getLocation(), move.from())) {
                continue; // no move, or this write did not undo it
            }
            if (PartitionMove.ifAt(metastore, table.database(), table.name(), name, move.from(), move.to())
                    .found() == PartitionMove.Found.MOVED) {
                log.warn("Partition {} of {}.{} was read before compaction {} moved it to {} and written after: "
                        + "it is put back at {}", name, table.database(), table.name(), move.compaction(),
                        move.to(), move.to());
            }
        }
    }

    private static Map<String, String> withOwn(Map<String, String> now, Map<String, String> wanted) {
        Map<String, String> params = now == null ? new HashMap<>() : new HashMap<>(now);
        for (String key : OWN) {
            String value = wanted == null ? null : wanted.get(key);
            if (value == null) {
                params.remove(key);
            } else {
                params.put(key, value);
            }
        }
        return params;
    }

    private static String nameOf(PartitionMarker.TimeTable table, Partition partition) {
        return new PartitionValues(table.partitionColumns(), partition.getValues()).path();
    }
}
