package io.hivesink.commit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.hadoop.fs.Path;

import io.hivesink.batch.Batch;
import io.hivesink.batch.RecordGroup;
import io.hivesink.metastore.HiveTable;
import io.hivesink.metastore.HiveTables;
import io.hivesink.table.PartitionValues;

/**
 * Where a batch's files land: each partition's registered location, which a compaction moves
 * ({@code docs/compaction.md}), not the path Hive would give it. Learned from the metastore once per partition and
 * task run (one call per table, for the partitions of a batch not known yet), and from the released holds in the
 * task's state, which tell the run of a move the instant its state is read again. A partition that does not exist
 * yet lands at its first location ({@link HiveTable#firstLocation}), where it is then registered.
 */
final class PartitionLocations {

    private final HiveTables tables;
    /** Per table, per partition path, its directory. */
    private final Map<String, Map<String, Path>> known = new ConcurrentHashMap<>();

    PartitionLocations(HiveTables tables) {
        this.tables = tables;
    }

    /** Looks up the batch's partitions not known yet, one metastore call per table. */
    void resolve(Batch batch, Map<String, HiveTable> tablesByName) {
        Map<String, List<String>> unknown = new LinkedHashMap<>();
        for (RecordGroup group : batch.groups()) {
            String path = group.partition().path();
            if (!path.isEmpty() && !of(group.table()).containsKey(path)) {
                unknown.computeIfAbsent(group.table(), t -> new ArrayList<>()).add(path);
            }
        }
        unknown.forEach((table, paths) -> {
            HiveTable hiveTable = tablesByName.get(table);
            Map<String, String> found = tables.locationsOf(hiveTable, List.copyOf(new LinkedHashSet<>(paths)));
            for (String path : paths) {
                String location = found.get(path);
                of(table).put(path, new Path(location != null ? location : hiveTable.firstLocation(path)));
            }
        });
    }

    /** The directory a partition's files land in: as resolved or moved, else its first location. */
    Path dirOf(HiveTable table, PartitionValues partition) {
        String path = partition.path();
        if (path.isEmpty()) {
            return new Path(table.location());
        }
        Path dir = of(table.name()).get(path);
        return dir != null ? dir : new Path(table.firstLocation(path));
    }

    /** Takes in the moves the state's released holds tell of. */
    void absorb(TaskState state) {
        for (TaskState.Hold hold : state.holds()) {
            if (hold.released()) {
                of(hold.table()).put(hold.partition(), new Path(hold.location()));
            }
        }
    }

    private Map<String, Path> of(String table) {
        return known.computeIfAbsent(table, t -> new ConcurrentHashMap<>());
    }
}
