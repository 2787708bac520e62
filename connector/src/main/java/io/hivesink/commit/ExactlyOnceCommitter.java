package io.hivesink.commit;

import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.Batch;
import io.hivesink.batch.RecordGroup;
import io.hivesink.batch.TableLayout;
import io.hivesink.format.TableFileWriter;
import io.hivesink.fs.StagingArea;
import io.hivesink.metastore.HiveTable;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.MetastoreException;

/**
 * The exactly-once commit protocol of one task, readable top to bottom.
 *
 * <p>A batch is committed in these steps:
 * <ol>
 * <li>stage: every file of the batch, and its ledger rows, are written to the task's staging directory and synced;
 * <li>intent: a manifest of the batch (files, partitions, end offsets) is synced next to them, and the task's
 * state table records it, by a compare-and-set that fails if the task was fenced, or if the batch does not start,
 * in each Kafka partition, at the offset committed before it ({@link BatchOutOfSequenceException}). From here on the
 * batch will be committed, by this task or by whoever finds the intent;
 * <li>move: the files are renamed into their partition directories (the ledger file into the ledger's);
 * <li>register: partitions not known to exist are added, one call per table;
 * <li>mark: the batch's ledger partition is added, with its end offsets: the one write that makes the batch
 * complete; then (5b) the done marking is told where the batch landed ({@link BatchLandings}), to bring up to date
 * the figures of time partitions marked done before it (late records);
 * <li>the task state takes the new offsets and drops the intent; the staging directory is removed.
 * </ol>
 * Steps 3 to 6 are idempotent ({@link BatchFinisher} does 3 to 5), so a batch found with a durable intent is rolled
 * forward ({@link AssignmentClaims}); a batch without one is discarded. Fencing: a task claims its partitions when they
 * are assigned, releasing them in the state of any other task that still owns them; that write changes the other
 * task's version, so its next conditional write ({@link OwnState#update}) fails and it finds out it lost them: a batch
 * of them is refused ({@link PartitionsTakenException}) and the task goes on with the partitions it still owns. Only
 * an instance whose task another instance runs now is a zombie, and stops ({@link TaskFencedException}). How a write is
 * made conditional on this metastore is settled when the task starts ({@link FencingProbe}).
 */
public final class ExactlyOnceCommitter {

    private static final Logger log = LoggerFactory.getLogger(ExactlyOnceCommitter.class);

    private final HiveTables tables;
    private final StagingArea staging;
    private final BatchStager stager;
    private final Ledger ledger;
    private final StateTables states;
    private final FaultInjector faults;
    private final TaskRun run;
    private final BatchFinisher finisher;
    private final OwnState own;
    private final AssignmentClaims claims;
    private final AbandonedStaging abandoned;
    private final LongSupplier clock;
    private final PartitionLocations locations;
    /** Batches done or given up whose staging directory is still to be removed ({@link #clean}). */
    private final Set<String> leftStaged = ConcurrentHashMap.newKeySet();
    /** Batches whose commit is under way now: their staging is in use. */
    private final Set<String> committing = ConcurrentHashMap.newKeySet();

    /**
     * @param writers the file writer of each table
     */
    public ExactlyOnceCommitter(HiveTables tables, StagingArea staging, Function<String, TableFileWriter> writers,
            Ledger ledger, StateTables states, FaultInjector faults, TaskRun run, LongSupplier clock) {
        this.tables = tables;
        this.staging = staging;
        this.ledger = ledger;
        this.states = states;
        this.faults = faults;
        this.run = run;
        this.clock = clock;
        this.locations = new PartitionLocations(tables);
        this.stager = new BatchStager(staging, writers, ledger, faults, run, clock, locations);
        this.finisher = new BatchFinisher(tables, staging, ledger, faults);
        this.own = new OwnState(states, run);
        this.abandoned = new AbandonedStaging(staging, run.instance(), committing::contains, System::nanoTime);
        this.claims = new AssignmentClaims(states, finisher, staging, own, run, abandoned);
    }

    /** Tells {@code landings} where each batch landed, once committed (step 5b). */
    public void tell(BatchLandings landings) {
        finisher.tell(landings);
    }

    /**
     * Prepares the ledger and the task's state table, and settles how writes to task states are fenced
     * ({@link FencingProbe}).
     *
     * @return the fencing in use
     * @throws ConnectException if the requested fencing cannot work on this metastore
     */
    public Fencing start(Fencing requested) {
        return start(requested, 0);
    }

    /**
     * As {@link #start(Fencing)}, waiting up to {@code foreignLockWaitMs} (-1: no end) for locks on the task's state
     * table that are not hive-sink's.
     */
    public Fencing start(Fencing requested, long foreignLockWaitMs) {
        ledger.table();
        own.set(states.readOrCreate(run.task()));
        Fencing fencing = FencingProbe.settle(states, run, requested, foreignLockWaitMs);
        if (fencing == Fencing.LOCKS) {
            tables.evolveUnderLocks(states.tableGuard()); // nor does it check evolutions
        }
        new StateHolds(states).copyFirstTasksHolds(own, run.task());
        return fencing;
    }

    /**
     * Per Kafka partition in any task's state, the greatest event time its owner has committed of it since it
     * claimed it ({@link TaskState.PartitionState#NO_TIME} if none, or if no task owns it now). Two metastore calls,
     * whatever the number of tasks.
     */
    public Map<TopicPartition, Long> landedEventTimes() {
        Map<TopicPartition, Long> landed = new HashMap<>();
        for (StateTables.Stored stored : states.readAll().values()) {
            stored.state().partitions().forEach((tp, p) -> landed.merge(tp,
                    p.owned() ? p.eventTime() : TaskState.PartitionState.NO_TIME, Math::max));
        }
        return landed;
    }

    /**
     * Per partition this task owns, the greatest event time it has committed of it since it claimed it
     * ({@link TaskState.PartitionState#NO_TIME} if none), as its state was last written or read: no metastore call.
     */
    public Map<TopicPartition, Long> ownEventTimes() {
        return own.perOwned(TaskState.PartitionState::eventTime);
    }

    /**
     * The partitions this task owns and their committed offsets ({@link TaskState.PartitionState#NONE} where none is
     * committed yet), as its state was last written or read.
     */
    public Map<TopicPartition, Long> ownedOffsets() {
        return own.perOwned(TaskState.PartitionState::nextOffset);
    }

    /**
     * Records that these partitions had landed everything their logs held at {@code time}: their event time becomes
     * at least that ({@link TaskState#caughtUp}). A state write of its own, fenced as every write; partitions another
     * task claimed meanwhile are left as they are.
     *
     * @throws TaskFencedException if another instance runs the task now
     */
    public void caughtUp(Set<TopicPartition> partitions, long time) {
        own.update(state -> state.caughtUp(partitions, time), Set.of());
    }

    /** Takes ownership of newly assigned partitions ({@link AssignmentClaims}); returns where to resume them. */
    public Map<TopicPartition, Long> claim(Collection<TopicPartition> partitions) {
        return claims.claim(partitions);
    }

    /**
     * The partitions of the last claim that wait before they take records, and for how long: where locks fence, a
     * write sent under a lock broken less than a bound ago may still undo the claim ({@link ProbationTerm}).
     */
    public Map<TopicPartition, ProbationTerm> probation() {
        return claims.probation();
    }

    /** Checks a claim again once its partitions' probation ended ({@link Recheck}). */
    public Recheck recheck(Collection<TopicPartition> partitions) {
        return claims.recheck(partitions);
    }

    /** Tests wait less. */
    void claimFirstBackoffMs(long ms) {
        claims.firstBackoffMs(ms);
    }

    /**
     * Moves the committed offsets of partitions this task owns, in every state that holds them
     * ({@link AssignmentClaims#move}): where their log no longer reaches them, and the user said to read them from the
     * log's start.
     */
    public void moveCommittedOffsets(Map<TopicPartition, Long> offsets) {
        claims.move(offsets);
    }

    /** Removes the abandoned batches a claim kept while they were young, once they are old enough, if any. */
    public void sweepAbandoned() {
        claims.sweepAbandoned();
    }

    /** A batch was dropped uncommitted: its staging, if some is left, goes at the next sweep. */
    public void givenUp() {
        abandoned.givenUp();
    }

    /** The partitions this task owns, as its state was last read. */
    public Set<TopicPartition> ownedPartitions() {
        return own.owned();
    }

    /** The committed offsets of the partitions this task owns. */
    public Map<TopicPartition, Long> committedOffsets() {
        return own.committedOffsets();
    }

    /** Commits the batch by the steps above, each timed; a batch whose intent is already durable is only finished. */
    public CommitSummary commit(Batch batch) {
        committing.add(batch.id());
        try {
            return commitUnderWay(batch);
        } finally {
            committing.remove(batch.id());
        }
    }

    private CommitSummary commitUnderWay(Batch batch) {
        TaskState.Intent intent = own.intent();
        if (intent != null && intent.batchId().equals(batch.id())) {
            return resume(batch, intent); // a retry after the intent was made durable: only finish it
        }
        if (intent != null) {
            // another batch's intent: that batch was dropped after its intent was durable (its commit failed while
            // partitions closed, or the memory budget needed its memory). It lands first, and this one is then checked
            // against its offsets: written over, its files already moved would stay and its records land twice. Read
            // again first: a task that took partitions over may have rolled it forward already
            own.reload();
            own.requireOwner(); // a zombie leaves the new instance's batch to it
            TaskState.Intent current = own.intent();
            if (current != null && !current.batchId().equals(batch.id())) {
                rollForward(current);
            }
        }
        PhaseTimer timer = new PhaseTimer();
        Map<String, HiveTable> tablesByName = tablesOf(batch);
        long tablesMs = timer.lapMs();
        locations.absorb(own.stored().state());
        locations.resolve(batch, tablesByName);
        BatchStager.Staged staged = stager.stage(batch, tablesByName);
        long stagingMs = timer.lapMs();
        recordIntent(batch, staged);
        long intentMs = timer.lapMs();
        BatchFinisher.Finished finished = finisher.finish(staged.manifest(), false);
        timer.lapMs();
        complete(batch);
        long stateMs = timer.lapMs();
        clean(batch.id());
        return new CommitSummary(batch.id(), new CommitSummary.Landed(batch.records(), tablesByName.size(),
                finished.partitions(), finished.newPartitions(), staged.manifest().files().size(), staged.bytes()),
                new CommitSummary.StepTimes(tablesMs, stagingMs, intentMs, finished.movingMs(),
                        finished.registeringMs(), finished.markingMs(), stateMs));
    }

    /**
     * The batch's tables, created or evolved as its records need, their cached schemas checked against the metastore.
     */
    private Map<String, HiveTable> tablesOf(Batch batch) {
        tables.refresh(batch.tables()); // a schema another task or a user changed since is checked again
        Map<String, HiveTable> tablesByName = new LinkedHashMap<>();
        Set<TableLayout> checked = new HashSet<>();
        for (RecordGroup group : batch.groups()) {
            // every record schema of a table, not only its first: a columnar file is written in the table's
            // columns, which must read each group's records; the table found last is the newest
            if (checked.add(group.layout())) {
                tablesByName.put(group.table(), tables.ensureTable(group.table(), group.layout().tableSchema(),
                        group.layout().partitionSpec()));
            }
        }
        return tablesByName;
    }

    /**
     * The most heap the batch's commit takes beyond the batch ({@link BatchStager#writingBytes}).
     */
    public long writingBytes(Batch batch) {
        return stager.writingBytes(batch);
    }

    /**
     * Step 2: the intent in the task's state, written only while this run still owns every partition of it and only
     * if the batch starts, in each partition, at the offset committed before it.
     */
    private void recordIntent(Batch batch, BatchStager.Staged staged) {
        Path manifestPath = staged.manifestPath();
        List<HoldCheck.Landing> landings = HoldCheck.landings(batch, staged.manifest().files());
        if (!own.stored().state().holds().isEmpty()) {
            own.reload(); // a refusal by a hold read before never reaches the write, which would find it released
        }
        try {
            own.update(state -> {
                if (state.intent() != null && !state.intent().batchId().equals(batch.id())) {
                    // never written over: the next try rolls that batch forward first
                    throw new MetastoreException("Batch " + state.intent().batchId() + " has a durable intent in "
                            + "the state of " + run + "; it is finished before batch " + batch.id(), null);
                }
                SequenceCheck.require(batch, state, run);
                locations.absorb(state); // a refused batch is staged again where its partitions moved
                HoldCheck.require(batch.id(), landings, state);
                // released holds are known to this run now: they go; a later run reads the moves from the metastore
                return state.withoutReleasedHolds()
                        .withIntent(new TaskState.Intent(batch.id(), manifestPath.toString()));
            }, batch.nextOffsets().keySet());
        } catch (TaskFencedException | PartitionsTakenException | BatchOutOfSequenceException
                | BatchHeldException e) {
            if (!(e instanceof LockBrokenException)) {
                clean(batch.id()); // refused: no intent of it is durable (broken: it may be, and its staging stays)
            }
            throw e;
        }
        faults.reached(FaultPoint.INTENT_DURABLE);
    }

    /**
     * A held batch whose intent another task finished (rolled forward, its staging removed) while its commit was
     * retried here: refused as a new batch would be, by ownership then by sequence, without staging it again (its
     * target keys are the landed files', which another finisher may still be completing).
     */
    private void refuseLandedElsewhere(Batch batch) {
        own.requireOwner();
        Set<TopicPartition> taken = new TreeSet<>(TaskState.PARTITION_ORDER);
        taken.addAll(batch.nextOffsets().keySet());
        taken.removeAll(own.owned());
        if (!taken.isEmpty()) {
            throw new PartitionsTakenException("Batch " + batch.id() + " of task " + run.task() + " of "
                    + run.connector() + " was finished by another task, which claimed " + taken + " from this one "
                    + "while its commit was retried here. It is dropped; the task goes on with the partitions it "
                    + "still owns.", taken);
        }
        SequenceCheck.require(batch, own.stored().state(), run); // finished elsewhere, the offsets are past it: refused
    }

    /** Step 6: the task's state takes the batch's offsets and event times, and drops its intent. */
    private void complete(Batch batch) {
        // a time ahead of the clock (a field in the wrong unit, a producer's clock) counts as now: kept as it is, it
        // would put the watermark ahead of every record still to come, for good
        long now = clock.getAsLong();
        Map<TopicPartition, Long> eventTimes = new HashMap<>(batch.eventTimes());
        eventTimes.replaceAll((tp, time) -> Math.min(time, now));
        own.update(state -> state.completed(batch.id(), batch.nextOffsets(), eventTimes), Set.of());
    }

    /** Finishes a batch of this task found with a durable intent ({@link BatchFinisher#rollForward}), and step 6. */
    private void rollForward(TaskState.Intent intent) {
        BatchFinisher.RolledForward rolled = finisher.rollForward(intent);
        own.update(state -> rolled.dropped() ? state.droppedIntent(intent.batchId())
                : state.completed(intent.batchId(), rolled.offsets()), Set.of());
        clean(intent.batchId());
        if (!rolled.dropped()) {
            log.info("Rolled forward batch {}, dropped after its intent was durable, before the next batch",
                    intent.batchId());
        }
    }

    private CommitSummary resume(Batch batch, TaskState.Intent intent) {
        PhaseTimer timer = new PhaseTimer();
        Manifest manifest = finisher.stagedManifest(intent).orElse(null);
        if (manifest == null) {
            return resumeUnstaged(batch);
        }
        BatchFinisher.Finished finished = finisher.finish(manifest, true);
        long finishMs = timer.lapMs();
        complete(batch);
        long stateMs = timer.lapMs();
        clean(batch.id());
        log.info("Finished batch {} after a failed try ({} ms)", batch.id(), finishMs + stateMs);
        return new CommitSummary(batch.id(), new CommitSummary.Landed(batch.records(), batch.tables().size(),
                finished.partitions(), finished.newPartitions(), manifest.files().size(), 0),
                CommitSummary.StepTimes.finished(finished, stateMs));
    }

    /**
     * A held batch whose intent was durable and whose staging is gone. A task that took some of its partitions over
     * may have rolled it forward (or given it up) and removed its staging: the state read again says so, and the batch
     * is then checked as a new one against the offsets it landed. Else it is finished from its marker, or given up
     * ({@link BatchFinisher#rollForward}) and its records read again.
     */
    private CommitSummary resumeUnstaged(Batch batch) {
        own.reload();
        own.requireOwner();
        TaskState.Intent now = own.intent();
        if (now == null || !now.batchId().equals(batch.id())) {
            refuseLandedElsewhere(batch);
            throw new RetriableException("Batch " + batch.id() + " was given up elsewhere before any of it landed; "
                    + "it is staged again at the next try");
        }
        BatchFinisher.RolledForward rolled = finisher.rollForward(now);
        if (rolled.dropped()) {
            own.update(state -> state.droppedIntent(batch.id()), Set.of());
            clean(batch.id());
            throw new BatchOutOfSequenceException("Batch " + batch.id() + " of task " + run.task() + " of "
                    + run.connector() + " cannot be finished: its intent is durable, but its staging is gone and the "
                    + "ledger has no marker for it. Its intent is dropped and its partitions are read again from the "
                    + "committed offsets.", batch.fromOffsets());
        }
        complete(batch);
        clean(batch.id());
        log.info("Batch {} was marked complete before its staging went; the task's state is brought up to it",
                batch.id());
        return new CommitSummary(batch.id(), new CommitSummary.Landed(batch.records(), batch.tables().size(), 0, 0,
                0, 0), new CommitSummary.StepTimes(0, 0, 0, 0, 0, 0, 0));
    }

    /**
     * The staging directory of the batch goes. One the store would not let go (away at that moment) is kept to try
     * again: after the next batch whose own directory goes (the store is back), and at the next claim's recovery, so
     * that a task that runs on without a rebalance does not keep it for good.
     */
    private void clean(String batchId) {
        if (!discarded(batchId)) {
            leftStaged.add(batchId);
            return; // the store is away: the earlier ones wait too
        }
        for (String id : List.copyOf(leftStaged)) {
            if (discarded(id)) {
                leftStaged.remove(id);
            }
        }
    }

    private boolean discarded(String batchId) {
        try {
            staging.discard(batchId);
            return true;
        } catch (IOException e) {
            log.warn("Could not remove the staging directory of batch {}; it is tried again after a later batch and "
                    + "at the next recovery", batchId, e);
            return false;
        }
    }
}
