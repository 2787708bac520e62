package io.hivesink.commit;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

    private static final Logger log = LoggerFactory.getLogger(BatchFinisher.class);

    private final HiveTables tables;
    private final StagingArea staging;
    private final Ledger ledger;
    private final FaultInjector faults;
    private volatile BatchLandings landings = BatchLandings.NONE;

    BatchFinisher(HiveTables tables, StagingArea staging, Ledger ledger, FaultInjector faults) {
        this.tables = tables;
        this.staging = staging;
        this.ledger = ledger;
        this.faults = faults;
    }

    /** Tells {@code landings} where each batch finished from now on landed. */
    void tell(BatchLandings landings) {
        this.landings = landings;
    }

    /**
     * The manifest of a batch with a durable intent, or empty if it is gone for certain (the file does not exist):
     * its staging was removed. A manifest that cannot be read for now (the store away) is a retriable failure.
     */
    Optional<Manifest> stagedManifest(TaskState.Intent intent) {
        try {
            return Optional.of(Manifest.read(staging.fileSystem(), new Path(intent.manifestPath())));
        } catch (FileNotFoundException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new RetriableException("Cannot read the manifest " + intent.manifestPath() + " of batch "
                    + intent.batchId() + " to finish it: " + e.getMessage(), e);
        }
    }

    /**
     * Finishes a batch found with a durable intent, whoever runs it: from its ledger marker if it was marked (its
     * staging may be gone by then), else by steps 3 to 5 from its manifest. A batch neither marked nor staged any
     * more cannot be finished, and must not wedge its task: it is given up, its intent to be dropped and its records
     * read again. Only a write that reached the metastore after its lock was broken leaves one (its staging removed
     * as abandoned by a claim, then its intent landing late): the protocol moves no file of a batch before its intent
     * is durable, and removes a batch's staging only after its marker, or once it is abandoned.
     */
    RolledForward rollForward(TaskState.Intent intent) {
        Optional<Map<TopicPartition, Long>> marked = ledger.markedOffsets(intent.batchId());
        if (marked.isPresent()) {
            tellLandings(intent.batchId()); // marked, then the task died: perhaps before it told
            return new RolledForward(marked.get(), true, false);
        }
        Optional<Manifest> manifest = stagedManifest(intent);
        if (manifest.isEmpty()) {
            marked = ledger.markedOffsets(intent.batchId()); // a finisher marks before it removes the staging
            if (marked.isPresent()) {
                tellLandings(intent.batchId());
                return new RolledForward(marked.get(), true, false);
            }
            log.warn("Batch {} has a durable intent but no ledger marker, and its manifest {} is gone: it cannot be "
                    + "finished. Its intent is dropped and its records are read again from the committed offsets. "
                    + "Its staging was removed while the write of its intent was under way, which only a write that "
                    + "reached the metastore after its lock was broken does (see docs/exactly-once.md, the lock "
                    + "window); readers of complete batches only never see any file of it that was moved (named "
                    + "part-{}-*), other readers would: remove such files", intent.batchId(), intent.manifestPath(),
                    intent.batchId());
            return new RolledForward(Map.of(), false, true);
        }
        finish(manifest.get(), true);
        return new RolledForward(manifest.get().nextOffsets(), false, false);
    }

    /**
     * A batch rolled forward: the end offsets it landed, for its task's state (none if dropped), whether it was marked
     * before, and whether it was given up as one that can no longer be finished.
     */
    record RolledForward(Map<TopicPartition, Long> offsets, boolean wasMarked, boolean dropped) {
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
        tellLandings(manifest.batchId());
        long t3 = System.nanoTime();
        return new Finished(partitions, newPartitions, ms(t1 - t0), ms(t2 - t1), ms(t3 - t2));
    }

    /**
     * After the marker: where the batch landed is told, for the done figures of time partitions marked done already
     * to be brought up to date (late records). Its ledger rows say where; a failure to read them is logged and
     * leaves those figures as they are, never the commit failed.
     */
    private void tellLandings(String batchId) {
        if (landings == BatchLandings.NONE) {
            return;
        }
        try {
            ledger.counts().partitionsIn(staging.fileSystem(), batchId).forEach(landings::landed);
        } catch (RuntimeException e) {
            log.warn("Batch {} is committed, but where it landed could not be read back from its ledger rows: the "
                    + "done figures of the time partitions it may have landed late records in stay as they are: {}",
                    batchId, e.toString());
        }
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }
}
