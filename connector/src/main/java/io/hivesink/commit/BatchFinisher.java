package io.hivesink.commit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;

import io.hivesink.fs.StagingArea;
import io.hivesink.metastore.HiveTable;
import io.hivesink.metastore.HiveTables;
import io.hivesink.table.PartitionValues;

/**
 * Steps 3 to 5 of the commit protocol, for a batch whose intent is durable: move its files into place, register
 * its partitions, add its ledger partition. Every step can be repeated, so the task that wrote the batch, its next
 * run, or another task can finish it from the manifest alone.
 */
final class BatchFinisher {

    private final HiveTables tables;
    private final StagingArea staging;
    private final Ledger ledger;
    private final FaultInjector faults;

    BatchFinisher(HiveTables tables, StagingArea staging, Ledger ledger, FaultInjector faults) {
        this.tables = tables;
        this.staging = staging;
        this.ledger = ledger;
        this.faults = faults;
    }

    Manifest readManifest(TaskState.Intent intent) {
        try {
            return Manifest.read(staging.fileSystem(), new Path(intent.manifestPath()));
        } catch (IOException e) {
            throw new RetriableException("Cannot read the manifest " + intent.manifestPath() + " of batch "
                    + intent.batchId() + " to finish it: " + e.getMessage(), e);
        }
    }

    /**
     * Finishes a batch found with a durable intent, whoever runs it: from its ledger marker if it was marked (its
     * staging may be gone by then), else by steps 3 to 5 from its manifest.
     */
    RolledForward rollForward(TaskState.Intent intent) {
        Map<TopicPartition, Long> marked = ledger.markedOffsets(intent.batchId()).orElse(null);
        if (marked != null) {
            return new RolledForward(marked, true);
        }
        Manifest manifest = readManifest(intent);
        finish(manifest, true);
        return new RolledForward(manifest.nextOffsets(), false);
    }

    /** A batch rolled forward: the end offsets it landed, for its task's state, and whether it was marked before. */
    record RolledForward(Map<TopicPartition, Long> offsets, boolean wasMarked) {
    }

    /** What finishing a batch did. */
    record Finished(int partitions, int newPartitions, long movingMs, long registeringMs, long markingMs) {
    }

    /**
     * Steps 3 to 5 of a batch whose intent is durable: each repeatable, so anyone can roll the batch forward.
     *
     * @param again whether an earlier try may have registered some of its partitions (a retry, a roll-forward): those
     *              that exist are checked to have the table's columns too ({@link HiveTables#registerPartitions})
     */
    Finished finish(Manifest manifest, boolean again) {
        long t0 = System.nanoTime();
        List<Manifest.StagedFile> all = new ArrayList<>(manifest.files());
        all.add(manifest.ledgerFile());
        FileSystem fs = staging.fileSystem();
        try {
            Set<Path> dirs = new HashSet<>();
            for (Manifest.StagedFile file : all) {
                if (dirs.add(file.target().getParent())) {
                    fs.mkdirs(file.target().getParent());
                }
            }
            for (int i = 0; i < all.size(); i++) {
                staging.move(all.get(i).staged(), all.get(i).target());
                if (i + 1 == (all.size() + 1) / 2) {
                    faults.reached(FaultPoint.HALF_MOVED);
                }
            }
        } catch (IOException e) {
            throw new RetriableException("Moving the files of batch " + manifest.batchId() + " into their tables "
                    + "failed: " + e.getMessage(), e);
        }
        staging.moved(all.stream().map(Manifest.StagedFile::target).toList());
        faults.reached(FaultPoint.ALL_MOVED);
        long t1 = System.nanoTime();

        Map<String, Set<List<String>>> partitionsByTable = new LinkedHashMap<>();
        for (Manifest.StagedFile file : manifest.files()) {
            partitionsByTable.computeIfAbsent(file.table(), t -> new LinkedHashSet<>()).add(file.partition());
        }
        int partitions = 0;
        int newPartitions = 0;
        int registered = 0;
        for (Map.Entry<String, Set<List<String>>> entry : partitionsByTable.entrySet()) {
            HiveTable table = tables.existing(entry.getKey());
            List<PartitionValues> values = new ArrayList<>();
            for (List<String> partition : entry.getValue()) {
                values.add(new PartitionValues(table.partitionSpec().names(), partition));
            }
            partitions += table.partitionSpec().isPartitioned() ? values.size() : 0;
            newPartitions += tables.registerPartitions(table, values, again);
            if (++registered == (partitionsByTable.size() + 1) / 2) {
                faults.reached(FaultPoint.HALF_REGISTERED);
            }
        }
        faults.reached(FaultPoint.REGISTERED);
        long t2 = System.nanoTime();

        ledger.mark(manifest.batchId(), manifest.nextOffsets());
        faults.reached(FaultPoint.MARKED);
        long t3 = System.nanoTime();
        return new Finished(partitions, newPartitions, ms(t1 - t0), ms(t2 - t1), ms(t3 - t2));
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }
}
