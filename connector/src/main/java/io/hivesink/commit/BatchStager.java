package io.hivesink.commit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.errors.RetriableException;

import io.hivesink.batch.Batch;
import io.hivesink.batch.RecordGroup;
import io.hivesink.format.TableFileWriter;
import io.hivesink.fs.StagingArea;
import io.hivesink.metastore.HiveTable;
import io.hivesink.table.DataFileName;
import io.hivesink.table.PartitionValues;

/**
 * Step 1 of the commit ({@link ExactlyOnceCommitter}), and the manifest that step 2 records: a batch's files, one per
 * table and partition, written by each table's writer into the task's staging directory and synced, then its ledger
 * rows, then the manifest that names them all. Why a part of its own: it is the one step that encodes and writes
 * data, and the one whose memory the batch's admission counts ({@link #writingBytes}).
 */
final class BatchStager {

    private final StagingArea staging;
    /** The writer of a table's files (tables may use different codecs). */
    private final Function<String, TableFileWriter> writers;
    private final Ledger ledger;
    private final FaultInjector faults;
    private final TaskRun run;
    private final LongSupplier clock;
    private final PartitionLocations locations;

    BatchStager(StagingArea staging, Function<String, TableFileWriter> writers, Ledger ledger, FaultInjector faults,
            TaskRun run, LongSupplier clock, PartitionLocations locations) {
        this.locations = locations;
        this.staging = staging;
        this.writers = writers;
        this.ledger = ledger;
        this.faults = faults;
        this.run = run;
        this.clock = clock;
    }

    /** What step 1 left in the staging directory. */
    record Staged(Manifest manifest, Path manifestPath, long bytes) {
    }

    /**
     * The most heap the batch's commit takes beyond the batch: its files are written one after another, so what the
     * largest file's writer holds ({@link TableFileWriter#writingBytes}).
     */
    public long writingBytes(Batch batch) {
        long most = 0;
        for (RecordGroup group : batch.groups()) {
            most = Math.max(most, writers.apply(group.table()).writingBytes(group.datums()));
        }
        return most;
    }

    /** Step 1, and the manifest of step 2: every file and the ledger rows staged and synced, then the manifest. */
    Staged stage(Batch batch, Map<String, HiveTable> tablesByName) {
        long commitTime = clock.getAsLong();
        List<Manifest.StagedFile> files = new ArrayList<>(batch.groups().size());
        long bytes = 0;
        Map<String, Integer> fileNumbers = new HashMap<>();
        Path manifestPath = staging.manifestPath(batch.id());
        try {
            for (RecordGroup group : batch.groups()) {
                int n = fileNumbers.merge(group.table(), 1, Integer::sum);
                TableFileWriter writer = writers.apply(group.table());
                String fileName = DataFileName.of(batch.id(), n, writer.extension());
                HiveTable table = tablesByName.get(group.table());
                files.add(stagedFile(batch.id(), table, group.partition(), fileName,
                        locations.dirOf(table, group.partition())));
                Manifest.StagedFile file = files.get(files.size() - 1);
                bytes += staging.write(file.staged(), file.target(),
                        out -> writer.write(group.layout().avroSchema(),
                                tablesByName.get(group.table()).avroSchema(), group.datums(), out));
                if (files.size() == 1) {
                    faults.reached(FaultPoint.SOME_STAGED);
                }
            }
            PartitionValues ledgerPartition = ledger.partitionOf(batch.id());
            Manifest.StagedFile ledgerFile = stagedFile(batch.id(), ledger.table(), ledgerPartition,
                    Ledger.fileName(batch.id()), new Path(ledger.table().location(), ledgerPartition.path()));
            staging.write(ledgerFile.staged(), ledgerFile.target(),
                    out -> ledger.writeRows(batch, run.connector(), run.task(), commitTime, out));
            faults.reached(FaultPoint.ALL_STAGED);
            Manifest manifest = new Manifest(batch.id(), files, ledgerFile, batch.nextOffsets());
            manifest.write(staging.fileSystem(), manifestPath);
            return new Staged(manifest, manifestPath, bytes);
        } catch (IOException e) {
            throw new RetriableException("Writing batch " + batch.id() + " to staging failed: " + e.getMessage(), e);
        }
    }

    private Manifest.StagedFile stagedFile(String batchId, HiveTable table, PartitionValues partition,
            String fileName, Path targetDir) {
        String partitionPath = partition.path();
        return new Manifest.StagedFile(table.name(), partition.values(),
                staging.stagedPath(batchId, table.name(), partitionPath, fileName), new Path(targetDir, fileName));
    }
}
