package io.hivesink.commit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.avro.ContainerFileWriter;
import io.hivesink.batch.Batch;
import io.hivesink.batch.RecordGroup;
import io.hivesink.fs.StagingArea;
import io.hivesink.metastore.HiveTable;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.MetastoreException;
import io.hivesink.route.PartitionValues;

/**
 * The exactly-once commit protocol of one task, readable top to bottom.
 *
 * <p>A batch is committed in these steps:
 * <ol>
 * <li>stage: every file of the batch, and its ledger rows, are written to the task's staging directory and synced;
 * <li>intent: a manifest of the batch (files, partitions, end offsets) is synced next to them, and the task's
 * state table records it, by a compare-and-set that fails if the task was fenced. From here on the batch will be
 * committed, by this task or by whoever finds the intent;
 * <li>move: the files are renamed into their partition directories (the ledger file into the ledger's);
 * <li>register: partitions not known to exist are added, one call per table;
 * <li>mark: the batch's ledger partition is added, with its end offsets: the one write that makes the batch
 * complete;
 * <li>the task state takes the new offsets and drops the intent; the staging directory is removed.
 * </ol>
 * Steps 3 to 6 are idempotent ({@link BatchFinisher} does 3 to 5), so a batch found with a durable intent is rolled
 * forward; a batch without one is discarded. Fencing: a task claims its partitions when they are assigned,
 * releasing them in the state of any other task that still owns them; that write changes the other task's version,
 * so its next conditional write fails and it finds out it lost them.
 */
public final class ExactlyOnceCommitter implements BatchCommitter {

    private static final Logger log = LoggerFactory.getLogger(ExactlyOnceCommitter.class);
    private static final int MAX_CONFLICTS = 20;
    private static final int CLAIM_ATTEMPTS = 8;
    private long claimFirstBackoffMs = 200;

    private final HiveTables tables;
    private final StagingArea staging;
    /** The writer of a table's files (tables may use different codecs). */
    private final Function<String, ContainerFileWriter> writers;
    private final Ledger ledger;
    private final StateTables states;
    private final FaultInjector faults;
    private final String connector;
    private final int task;
    private final String instance;
    private final LongSupplier clock;
    private final BatchFinisher finisher;
    private StateTables.Stored mine;

    public ExactlyOnceCommitter(HiveTables tables, StagingArea staging, ContainerFileWriter writer, Ledger ledger,
            StateTables states, FaultInjector faults, String connector, int task, String instance,
            LongSupplier clock) {
        this(tables, staging, table -> writer, ledger, states, faults, connector, task, instance, clock);
    }

    /**
     * @param writers the file writer of each table
     */
    public ExactlyOnceCommitter(HiveTables tables, StagingArea staging, Function<String, ContainerFileWriter> writers,
            Ledger ledger, StateTables states, FaultInjector faults, String connector, int task, String instance,
            LongSupplier clock) {
        this.tables = tables;
        this.staging = staging;
        this.writers = writers;
        this.ledger = ledger;
        this.states = states;
        this.faults = faults;
        this.connector = connector;
        this.task = task;
        this.instance = instance;
        this.clock = clock;
        this.finisher = new BatchFinisher(tables, staging, ledger, faults);
    }

    /**
     * Prepares the ledger and the task's state table, and settles how writes to task states are fenced: by
     * compare-and-set if the metastore checks it (probed with a stale and a current expectation), else by the
     * metastore's locks.
     *
     * @return the fencing in use
     * @throws ConnectException if the requested fencing cannot work on this metastore
     */
    public Fencing start(Fencing requested) {
        ledger.table();
        mine = states.readOrCreate(task);
        String casProblem = null;
        if (requested != Fencing.LOCKS) {
            StateTables.CompareAndSet probed = states.probeCompareAndSet(mine);
            mine = states.read(task);
            if (probed == StateTables.CompareAndSet.CHECKED) {
                states.use(Fencing.COMPARE_AND_SET);
                return Fencing.COMPARE_AND_SET;
            }
            casProblem = probed == StateTables.CompareAndSet.IGNORED
                    ? "it accepts alter_table with an expected parameter value but does not check it (Hive 3.x and "
                            + "2.x before 2.3.10 do this)"
                    : "it refuses alter_table with an expected parameter value even when the value matches (Hive 4 "
                            + "does this with metastore.try.direct.sql=false, or on a Derby schema made by schematool)";
            if (requested == Fencing.COMPARE_AND_SET) {
                throw new ConnectException("hive-sink cannot fence zombie tasks by compare-and-set on the "
                        + states.metastoreDescription() + ": " + casProblem
                        + ". Set hive.metastore.fencing=auto or locks.");
            }
        }
        String lockProblem = states.lockProblem(task);
        if (lockProblem != null) {
            throw new ConnectException("hive-sink cannot fence zombie tasks on the "
                    + states.metastoreDescription() + ": " + (casProblem == null ? "" : casProblem + ", and ")
                    + "its lock API fails (" + lockProblem + "). Locks need the metastore's transaction tables (a "
                    + "schema made by schematool); or use a metastore 2.3.10+ or 4.x with direct SQL on, which "
                    + "checks compare-and-set.");
        }
        log.info("Task {} of {} fences by metastore locks{}", task, connector,
                casProblem == null ? "" : ": compare-and-set cannot be used, " + casProblem);
        states.use(Fencing.LOCKS);
        return Fencing.LOCKS;
    }

    /**
     * Takes ownership of newly assigned partitions: finishes every interrupted batch that holds them (or that this
     * task left), fences their previous owners, removes this task's abandoned staged batches, and returns the
     * committed offsets to resume from (partitions without any are absent). A metastore or FileSystem failure that
     * may pass is retried with backoff (about 15 s in all) before it fails the task: a rebalance should not kill
     * a task because the metastore blinked.
     */
    public Map<TopicPartition, Long> claim(Collection<TopicPartition> partitions) {
        long backoffMs = claimFirstBackoffMs;
        for (int attempt = 1; ; attempt++) {
            try {
                return claimOnce(partitions);
            } catch (RetriableException e) {
                if (attempt == CLAIM_ATTEMPTS) {
                    throw new ConnectException("Task " + task + " of " + connector + " could not claim " + partitions
                            + " in " + attempt + " attempts: " + e.getMessage(), e);
                }
                log.warn("Claiming {} failed (attempt {} of {}); retrying in {} ms: {}", partitions, attempt,
                        CLAIM_ATTEMPTS, backoffMs, e.getMessage());
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new ConnectException("Interrupted while claiming " + partitions, interrupted);
                }
                backoffMs = Math.min(backoffMs * 2, 5_000);
            }
        }
    }

    /** Tests wait less. */
    void claimFirstBackoffMs(long ms) {
        this.claimFirstBackoffMs = ms;
    }

    private Map<TopicPartition, Long> claimOnce(Collection<TopicPartition> partitions) {
        long start = System.nanoTime();
        int rolledForward = 0;
        for (int attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
            Map<Integer, StateTables.Stored> all = states.readAll();
            boolean changed = false;
            for (StateTables.Stored state : all.values()) {
                TaskState.Intent intent = state.state().intent();
                if (intent != null && (state.task() == task || state.state().ownsAny(partitions))) {
                    rollForward(state);
                    rolledForward++;
                    changed = true;
                }
            }
            for (StateTables.Stored state : all.values()) {
                if (!changed && state.task() != task && state.state().ownsAny(partitions)) {
                    changed = states.write(state, state.state().released(partitions)) == null;
                    if (!changed) {
                        log.info("Task {} of {} takes {} over from task {}", task, connector,
                                ownedOf(state.state(), partitions), state.task());
                    }
                }
            }
            if (changed) {
                continue; // read again what the writes above changed
            }
            Map<TopicPartition, Long> offsets = committedOffsets(all.values(), partitions);
            StateTables.Stored own = all.get(task);
            StateTables.Stored next = states.write(own, own.state().claimed(instance, partitions, offsets));
            if (next == null) {
                continue;
            }
            mine = next;
            int discarded = discardAbandonedBatches();
            log.info("Task {} of {} claimed {} partitions in {} ms ({} state tables read, {} interrupted batches "
                    + "rolled forward, {} abandoned staged batches removed); resuming at {}", task, connector,
                    partitions.size(), (System.nanoTime() - start) / 1_000_000, all.size(), rolledForward, discarded,
                    offsets);
            return offsets;
        }
        throw new MetastoreException("Task " + task + " of " + connector + " could not claim " + partitions
                + ": its state kept changing under it in " + MAX_CONFLICTS + " attempts.", null);
    }

    /** The committed offsets of the partitions this task owns. */
    public Map<TopicPartition, Long> committedOffsets() {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        mine.state().partitions().forEach((tp, state) -> {
            if (state.owned() && state.nextOffset() != TaskState.PartitionState.NONE) {
                offsets.put(tp, state.nextOffset());
            }
        });
        return offsets;
    }

    @Override
    public CommitSummary commit(Batch batch) {
        TaskState.Intent intent = mine.state().intent();
        if (intent != null && intent.batchId().equals(batch.id())) {
            return resume(batch, intent); // a retry after the intent was made durable: only finish it
        }
        long t0 = System.nanoTime();
        Map<String, HiveTable> tablesByName = new LinkedHashMap<>();
        for (RecordGroup group : batch.groups()) {
            tablesByName.computeIfAbsent(group.table(), name -> tables.ensureTable(name,
                    group.layout().tableSchema(), group.layout().partitionSpec()));
        }
        long t1 = System.nanoTime();

        long commitTime = clock.getAsLong();
        List<Manifest.StagedFile> files = new ArrayList<>(batch.groups().size());
        long bytes = 0;
        Map<String, Integer> fileNumbers = new HashMap<>();
        Manifest manifest;
        Path manifestPath = staging.manifestPath(batch.id());
        try {
            for (RecordGroup group : batch.groups()) {
                int n = fileNumbers.merge(group.table(), 1, Integer::sum);
                String fileName = "part-" + batch.id() + "-" + String.format("%05d", n) + ".avro";
                files.add(stagedFile(batch.id(), tablesByName.get(group.table()), group.partition(), fileName));
                bytes += staging.write(files.get(files.size() - 1).staged(),
                        out -> writers.apply(group.table()).write(group.layout().avroSchema(), group.datums(), out));
                if (files.size() == 1) {
                    faults.reached(FaultPoint.SOME_STAGED);
                }
            }
            Manifest.StagedFile ledgerFile = stagedFile(batch.id(), ledger.table(), ledger.partitionOf(batch.id()),
                    "ledger-" + batch.id() + ".avro");
            staging.write(ledgerFile.staged(), out -> ledger.writeRows(batch, connector, task, commitTime, out));
            faults.reached(FaultPoint.ALL_STAGED);
            manifest = new Manifest(batch.id(), files, ledgerFile, batch.nextOffsets());
            manifest.write(staging.fileSystem(), manifestPath);
        } catch (IOException e) {
            throw new RetriableException("Writing batch " + batch.id() + " to staging failed: " + e.getMessage(), e);
        }
        long t2 = System.nanoTime();

        try {
            updateMine(state -> state.withIntent(new TaskState.Intent(batch.id(), manifestPath.toString())),
                    batch.nextOffsets().keySet());
        } catch (TaskFencedException e) {
            discardQuietly(batch.id());
            throw e;
        }
        faults.reached(FaultPoint.INTENT_DURABLE);
        long t3 = System.nanoTime();

        BatchFinisher.Finished finished = finisher.finish(manifest);
        long t4 = System.nanoTime();
        updateMine(state -> state.completed(batch.id(), batch.nextOffsets()), Set.of());
        long t5 = System.nanoTime();
        discardQuietly(batch.id());
        return new CommitSummary(batch.id(), batch.records(), tablesByName.size(), finished.partitions(),
                finished.newPartitions(), files.size(), bytes, ms(t1 - t0), ms(t2 - t1), ms(t3 - t2),
                finished.movingMs(), finished.registeringMs(), finished.markingMs(), ms(t5 - t4));
    }

    private CommitSummary resume(Batch batch, TaskState.Intent intent) {
        long t0 = System.nanoTime();
        Manifest manifest = finisher.readManifest(intent);
        BatchFinisher.Finished finished = finisher.finish(manifest);
        long t1 = System.nanoTime();
        updateMine(state -> state.completed(batch.id(), batch.nextOffsets()), Set.of());
        long t2 = System.nanoTime();
        discardQuietly(batch.id());
        log.info("Finished batch {} after a failed try ({} ms)", batch.id(), ms(t2 - t0));
        return new CommitSummary(batch.id(), batch.records(), batch.tables().size(), finished.partitions(),
                finished.newPartitions(), manifest.files().size(), 0, 0, 0, 0, finished.movingMs(),
                finished.registeringMs(), finished.markingMs(), ms(t2 - t1));
    }

    private Manifest.StagedFile stagedFile(String batchId, HiveTable table, PartitionValues partition,
            String fileName) {
        String partitionPath = partition.path();
        Path targetDir = partitionPath.isEmpty() ? new Path(table.location())
                : new Path(table.location(), partitionPath);
        return new Manifest.StagedFile(table.name(), partition.values(),
                staging.stagedPath(batchId, table.name(), partitionPath, fileName), new Path(targetDir, fileName));
    }

    /** Finishes another task's (or an earlier run's) batch found with a durable intent. */
    private void rollForward(StateTables.Stored state) {
        TaskState.Intent intent = state.state().intent();
        Map<TopicPartition, Long> offsets = ledger.markedOffsets(intent.batchId()).orElse(null);
        boolean wasMarked = offsets != null;
        if (!wasMarked) {
            Manifest manifest = finisher.readManifest(intent);
            finisher.finish(manifest);
            offsets = manifest.nextOffsets();
        }
        if (states.write(state, state.state().completed(intent.batchId(), offsets)) != null) {
            try {
                staging.fileSystem().delete(new Path(intent.manifestPath()).getParent(), true);
            } catch (IOException e) {
                log.warn("Could not remove the staging directory of batch {}; the next recovery will",
                        intent.batchId(), e);
            }
        }
        log.info("Rolled forward batch {} of task {} (its intent was durable; it was {}marked complete)",
                intent.batchId(), state.task(), wasMarked ? "already " : "not yet ");
    }

    /**
     * Applies a change to this task's state by compare-and-set, re-reading it after a conflict.
     *
     * @param mustOwn partitions this task must still own for the change to be made
     * @throws TaskFencedException if another instance took over the task, or another task claimed a partition
     */
    private void updateMine(UnaryOperator<TaskState> change, Set<TopicPartition> mustOwn) {
        for (int attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
            if (attempt > 0) {
                mine = states.read(task);
            }
            if (!instance.equals(mine.state().owner())) {
                throw new TaskFencedException("Task " + task + " of connector " + connector + " was fenced: another "
                        + "instance (" + mine.state().owner() + ") runs it now. This instance (" + instance
                        + ") stops without committing.");
            }
            for (TopicPartition tp : mustOwn) {
                if (!mine.state().owns(tp)) {
                    throw new TaskFencedException("Task " + task + " of connector " + connector + " was fenced: "
                            + "another task claimed " + tp + ". The batch is not committed; the partition's new "
                            + "owner resumes from the last committed offset.");
                }
            }
            StateTables.Stored next = states.write(mine, change.apply(mine.state()));
            if (next != null) {
                mine = next;
                return;
            }
        }
        throw new MetastoreException("The state of task " + task + " of " + connector + " kept changing under it in "
                + MAX_CONFLICTS + " attempts.", null);
    }

    private static Map<TopicPartition, Long> committedOffsets(Collection<StateTables.Stored> all,
            Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (StateTables.Stored state : all) {
            for (TopicPartition tp : partitions) {
                TaskState.PartitionState p = state.state().partitions().get(tp);
                if (p != null && p.nextOffset() != TaskState.PartitionState.NONE) {
                    offsets.merge(tp, p.nextOffset(), Math::max);
                }
            }
        }
        return offsets;
    }

    private static List<TopicPartition> ownedOf(TaskState state, Collection<TopicPartition> partitions) {
        return partitions.stream().filter(state::owns).toList();
    }

    private int discardAbandonedBatches() {
        TaskState.Intent intent = mine.state().intent();
        try {
            return staging.discardAllExcept(intent == null ? Set.of() : Set.of(intent.batchId()));
        } catch (IOException e) {
            log.warn("Could not remove abandoned staged batches; the next recovery will try again", e);
            return 0;
        }
    }

    private void discardQuietly(String batchId) {
        try {
            staging.discard(batchId);
        } catch (IOException e) {
            log.warn("Could not remove the staging directory of batch {}; the next recovery will", batchId, e);
        }
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }
}
