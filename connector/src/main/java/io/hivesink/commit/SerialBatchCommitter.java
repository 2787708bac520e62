package io.hivesink.commit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.errors.RetriableException;

import io.hivesink.avro.ContainerFileWriter;
import io.hivesink.batch.Batch;
import io.hivesink.batch.RecordGroup;
import io.hivesink.fs.StagingArea;
import io.hivesink.metastore.HiveTable;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.Metastore;
import io.hivesink.route.PartitionValues;

/**
 * Commits a batch step by step: tables exist and match, every file is written to staging and synced, files are
 * moved into their partition directories, then new partitions are registered, one call per table. Each step can be
 * repeated after a failure. Not exactly-once: a crash after the moves and before the offsets are committed lands
 * the batch again on restart (the exactly-once protocol replaces this class).
 */
public final class SerialBatchCommitter implements BatchCommitter {

    private final HiveTables tables;
    private final Metastore metastore;
    private final StagingArea staging;
    private final ContainerFileWriter writer;

    public SerialBatchCommitter(HiveTables tables, Metastore metastore, StagingArea staging,
            ContainerFileWriter writer) {
        this.tables = tables;
        this.metastore = metastore;
        this.staging = staging;
        this.writer = writer;
    }

    @Override
    public CommitSummary commit(Batch batch) {
        long t0 = System.nanoTime();
        Map<String, HiveTable> tablesByName = new LinkedHashMap<>();
        for (RecordGroup group : batch.groups()) {
            HiveTable table = tables.ensureTable(group.table(), group.layout().avroSchema(),
                    group.layout().partitionSpec());
            tablesByName.put(group.table(), table);
        }
        long t1 = System.nanoTime();

        List<Path> staged = new ArrayList<>(batch.groups().size());
        List<Path> targetDirs = new ArrayList<>(batch.groups().size());
        List<Boolean> inPlace = new ArrayList<>(batch.groups().size());
        long bytes = 0;
        Map<String, Integer> fileNumbers = new HashMap<>();
        try {
            for (RecordGroup group : batch.groups()) {
                int n = fileNumbers.merge(group.table(), 1, Integer::sum);
                String fileName = "part-" + batch.id() + "-" + String.format("%05d", n) + ".avro";
                HiveTable table = tablesByName.get(group.table());
                String partitionPath = group.partition().path();
                Path targetDir = partitionPath.isEmpty() ? new Path(table.location())
                        : new Path(table.location(), partitionPath);
                Path path = staging.stagedPath(batch.id(), group.table(), partitionPath, fileName);
                boolean moved = staging.isInPlace(path, targetDir); // a retry skips files an earlier try moved
                if (!moved) {
                    bytes += staging.write(path, out -> writer.write(group.layout().avroSchema(), group.datums(), out));
                }
                staged.add(path);
                targetDirs.add(targetDir);
                inPlace.add(moved);
            }
        } catch (IOException e) {
            throw new RetriableException("Writing batch " + batch.id() + " to staging failed: " + e.getMessage(), e);
        }
        long t2 = System.nanoTime();

        Map<String, Set<PartitionValues>> partitionsByTable = new LinkedHashMap<>();
        try {
            for (int i = 0; i < staged.size(); i++) {
                RecordGroup group = batch.groups().get(i);
                if (!inPlace.get(i)) {
                    staging.moveInto(staged.get(i), targetDirs.get(i));
                }
                partitionsByTable.computeIfAbsent(group.table(), t -> new LinkedHashSet<>()).add(group.partition());
            }
        } catch (IOException e) {
            throw new RetriableException("Moving the files of batch " + batch.id() + " into their tables failed: "
                    + e.getMessage(), e);
        }
        long t3 = System.nanoTime();

        int newPartitions = 0;
        int partitions = 0;
        for (Map.Entry<String, Set<PartitionValues>> entry : partitionsByTable.entrySet()) {
            partitions += entry.getValue().size();
            newPartitions += tables.registerPartitions(tablesByName.get(entry.getKey()), entry.getValue());
        }
        long t4 = System.nanoTime();
        try {
            staging.discard(batch.id());
        } catch (IOException e) {
            // only an empty directory is left behind; the next batch does not depend on it
        }
        return new CommitSummary(batch.id(), batch.records(), tablesByName.size(), partitions, newPartitions,
                staged.size(), bytes, ms(t1 - t0), ms(t2 - t1), ms(t3 - t2), ms(t4 - t3));
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }

    @Override
    public void close() {
        metastore.close();
    }
}
