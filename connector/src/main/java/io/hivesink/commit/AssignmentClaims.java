package io.hivesink.commit;

import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.fs.StagingArea;
import io.hivesink.metastore.MetastoreException;

/**
 * Taking partitions over when they are assigned, which is also recovery: every interrupted batch that holds them (or
 * that this task left) is rolled forward, their previous owners are fenced by releasing the partitions in their
 * states, this task's abandoned staged batches are removed, and the committed offsets come back to resume from.
 * Recovery reads the state of the connector's tasks and at most one manifest per task; it never lists a table.
 */
final class AssignmentClaims {

    private static final Logger log = LoggerFactory.getLogger(AssignmentClaims.class);
    /** Tries before a claim is put off (about 1.4 s): the task tries again later, its partitions paused. */
    private static final int CLAIM_ATTEMPTS = 4;

    private final StateTables states;
    private final BatchFinisher finisher;
    private final StagingArea staging;
    private final OwnState own;
    private final TaskRun run;
    private final AbandonedStaging abandoned;
    private long firstBackoffMs = 200;
    /** The probation of the last claim's partitions, if any ({@link ProbationTerm}). */
    private Map<TopicPartition, ProbationTerm> probation = Map.of();
    /** The version of this instance's last claim of its state ({@link StateTables#CLAIM_VERSION}); -1 before. */
    private long claimVersion = -1;
    /** The earlier instances of this task whose state this instance's claims took over. */
    private final Set<String> displaced = new HashSet<>();

    AssignmentClaims(StateTables states, BatchFinisher finisher, StagingArea staging, OwnState own, TaskRun run,
            AbandonedStaging abandoned) {
        this.states = states;
        this.abandoned = abandoned;
        this.finisher = finisher;
        this.staging = staging;
        this.own = own;
        this.run = run;
    }

    /** Tests wait less. */
    void firstBackoffMs(long ms) {
        this.firstBackoffMs = ms;
    }

    /**
     * Claims the partitions. A metastore or FileSystem failure that may pass is retried a few times with backoff:
     * a rebalance should not wait long, nor kill a task, because the metastore blinked.
     *
     * @return the committed offsets to resume from; partitions without any are absent
     * @throws ClaimNotPossibleYetException if the failure lasted: nothing is claimed, try again later
     */
    Map<TopicPartition, Long> claim(Collection<TopicPartition> partitions) {
        long backoffMs = firstBackoffMs;
        for (int attempt = 1; ; attempt++) {
            try {
                return claimOnce(partitions);
            } catch (RetriableException e) {
                if (attempt == CLAIM_ATTEMPTS) {
                    throw new ClaimNotPossibleYetException("Task " + run.task() + " of " + run.connector()
                            + " could not claim " + partitions + " in " + attempt + " attempts: " + e.getMessage(), e);
                }
                log.warn("Claiming {} failed (attempt {} of {}); retrying in {} ms: {}", partitions, attempt,
                        CLAIM_ATTEMPTS, backoffMs, e.getMessage());
                if (!Pause.of(backoffMs)) {
                    throw new ConnectException("Interrupted while claiming " + partitions);
                }
                backoffMs = Math.min(backoffMs * 2, 5_000);
            }
        }
    }

    private Map<TopicPartition, Long> claimOnce(Collection<TopicPartition> partitions) {
        long start = System.nanoTime();
        states.settleStaleBoundIfNotFinal(run);
        int rolledForward = 0;
        for (int attempt = 0; attempt < OwnState.MAX_CONFLICTS; attempt++) {
            Map<Integer, StateTables.Stored> all = states.readAll();
            boolean changed = false;
            for (StateTables.Stored state : all.values()) {
                TaskState.Intent intent = state.state().intent();
                if (intent != null && (state.task() == run.task() || state.state().ownsAny(partitions))) {
                    rollForward(state);
                    rolledForward++;
                    changed = true;
                }
            }
            Map<Integer, StateTables.Stored> released = new HashMap<>();
            for (StateTables.Stored state : all.values()) {
                if (!changed && state.task() != run.task() && state.state().ownsAny(partitions)) {
                    StateTables.Stored written = states.write(state, state.state().released(partitions));
                    changed = written == null;
                    if (!changed) {
                        released.put(state.task(), written); // as written: with a lock broken on the way, if one was
                        log.info("Task {} of {} takes {} over from task {}", run.task(), run.connector(),
                                ownedOf(state.state(), partitions), state.task());
                    }
                }
            }
            if (changed) {
                continue; // read again what the writes above changed
            }
            all.putAll(released);
            Map<TopicPartition, Long> offsets = committedOffsets(all.values(), partitions);
            StateTables.Stored mine = all.get(run.task());
            String before = mine.state().owner();
            StateTables.Stored next = states.writeClaim(mine, mine.state().claimed(run.instance(), partitions,
                    offsets));
            if (next == null) {
                continue;
            }
            own.set(next);
            if (before != null && !before.equals(run.instance())) {
                displaced.add(before);
            }
            claimVersion = StateTables.claimVersion(next);
            all.put(run.task(), next); // as written: with a lock broken on the way, if one was
            probation = probation(all, partitions);
            int discarded = discardAbandonedBatches();
            log.info("Task {} of {} claimed {} partitions in {} ms ({} state tables read, {} interrupted batches "
                    + "rolled forward, {} abandoned staged batches removed); resuming at {}", run.task(),
                    run.connector(), partitions.size(), (System.nanoTime() - start) / 1_000_000, all.size(),
                    rolledForward, discarded, offsets);
            return offsets;
        }
        throw new MetastoreException("Task " + run.task() + " of " + run.connector() + " could not claim "
                + partitions + ": its state kept changing under it in " + OwnState.MAX_CONFLICTS + " attempts.",
                null);
    }

    /** The probation of the last claim's partitions; those absent take records at once. */
    Map<TopicPartition, ProbationTerm> probation() {
        return probation;
    }

    /**
     * Which of the claimed partitions wait before they take records: where locks fence, those a state whose lock was
     * broken less than a bound ago holds (owned or released), and all of them if that state is this task's own.
     */
    private Map<TopicPartition, ProbationTerm> probation(Map<Integer, StateTables.Stored> all,
            Collection<TopicPartition> partitions) {
        long boundMs = states.lateWriteBoundMs();
        if (boundMs <= 0) {
            return Map.of();
        }
        long now = System.currentTimeMillis();
        Map<TopicPartition, ProbationTerm> terms = new HashMap<>();
        for (StateTables.Stored state : all.values()) {
            long leftMs = ProbationTerm.msLeft(states.lockBrokenAt(state), boundMs, now);
            if (leftMs <= 0) {
                continue;
            }
            for (TopicPartition tp : partitions) {
                if (state.task() == run.task() || state.state().partitions().containsKey(tp)) {
                    terms.merge(tp, new ProbationTerm(leftMs), ProbationTerm::longer);
                }
            }
        }
        return terms;
    }

    /**
     * Checks a claim again at the end of its partitions' probation, in one read of the states. This task's state owned
     * by another instance of it is undone if that is an instance this one displaced and the state holds an older claim
     * than this instance's (its late write put it back): the partitions are claimed again. Otherwise this instance is
     * the zombie.
     *
     * @throws TaskFencedException if another instance of this task claimed it since this one did
     */
    Recheck recheck(Collection<TopicPartition> partitions) {
        Map<Integer, StateTables.Stored> all = states.readAll();
        StateTables.Stored stored = all.get(run.task());
        TaskState mine = stored.state();
        if (!run.instance().equals(mine.owner())) {
            if (displaced.contains(mine.owner()) && StateTables.claimVersion(stored) < claimVersion) {
                return new Recheck(Set.of(), Set.copyOf(partitions), Set.of(), Map.of());
            }
            throw new TaskFencedException("Task " + run.task() + " of " + run.connector() + " was fenced while its "
                    + "claim of " + partitions + " waited: another instance (" + mine.owner() + ") claimed it since.");
        }
        Set<TopicPartition> passed = new HashSet<>();
        Set<TopicPartition> undone = new HashSet<>();
        Set<TopicPartition> lost = new HashSet<>();
        for (TopicPartition tp : partitions) {
            boolean otherOwns = all.values().stream().anyMatch(s -> s.task() != run.task() && s.state().owns(tp));
            // owned by none: a late write of this task's state dropped it (another task's claim takes it from here)
            (otherOwns ? (mine.owns(tp) ? undone : lost) : mine.owns(tp) ? passed : undone).add(tp);
        }
        return new Recheck(passed, undone, lost, committedOffsets(all.values(), passed));
    }

    /**
     * Moves the committed offsets of partitions this task owns, in every task's state that holds them: a claim resumes
     * a partition from the highest offset any state holds, so an offset moved down in this task's state alone would
     * come back at the next claim. Others' states first, then this task's, each a conditional write; repeated whole,
     * it ends the same.
     */
    void move(Map<TopicPartition, Long> offsets) {
        for (int attempt = 0; attempt < OwnState.MAX_CONFLICTS; attempt++) {
            boolean conflict = false;
            Map<Integer, StateTables.Stored> all = states.readAll();
            Set<TopicPartition> taken = new TreeSet<>(TaskState.PARTITION_ORDER);
            for (StateTables.Stored state : all.values()) {
                boolean ours = state.task() == run.task();
                if (ours && !run.instance().equals(state.state().owner())) {
                    throw new TaskFencedException("Task " + run.task() + " of " + run.connector() + " was fenced "
                            + "before it moved committed offsets: another instance (" + state.state().owner()
                            + ") runs it now. Nothing was moved.");
                }
                for (TopicPartition tp : offsets.keySet()) {
                    // a task that lost the partitions since must not move another owner's offsets
                    if (ours != state.state().owns(tp)) {
                        taken.add(tp);
                    }
                }
            }
            if (!taken.isEmpty()) {
                throw new PartitionsTakenException("Another task of connector " + run.connector() + " claimed "
                        + taken + " before task " + run.task() + " moved their committed offsets. Nothing was "
                        + "moved.", taken);
            }
            for (StateTables.Stored state : all.values()) {
                if (state.task() == run.task()) {
                    continue;
                }
                Map<TopicPartition, Long> theirs = new HashMap<>();
                offsets.forEach((tp, offset) -> {
                    TaskState.PartitionState held = state.state().partitions().get(tp);
                    if (held != null && held.nextOffset() != offset) {
                        theirs.put(tp, offset);
                    }
                });
                if (!theirs.isEmpty()) {
                    conflict |= states.write(state, state.state().movedTo(theirs)) == null;
                }
            }
            if (!conflict) {
                own.update(state -> state.movedTo(offsets), offsets.keySet());
                return;
            }
        }
        throw new MetastoreException("Task " + run.task() + " of " + run.connector() + " could not move the "
                + "committed offsets of " + offsets.keySet() + ": the states kept changing under it in "
                + OwnState.MAX_CONFLICTS + " attempts.", null);
    }

    /** Finishes another task's (or an earlier run's) batch found with a durable intent. */
    private void rollForward(StateTables.Stored state) {
        TaskState.Intent intent = state.state().intent();
        BatchFinisher.RolledForward rolled = finisher.rollForward(intent);
        TaskState next = rolled.dropped() ? state.state().droppedIntent(intent.batchId())
                : state.state().completed(intent.batchId(), rolled.offsets());
        if (states.write(state, next) != null) {
            try {
                staging.fileSystem().delete(new Path(intent.manifestPath()).getParent(), true);
            } catch (IOException e) {
                log.warn("Could not remove the staging directory of batch {}; the next recovery will",
                        intent.batchId(), e);
            }
        }
        if (!rolled.dropped()) {
            log.info("Rolled forward batch {} of task {} (its intent was durable; it was {}marked complete)",
                    intent.batchId(), state.task(), rolled.wasMarked() ? "already " : "not yet ");
        }
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

    void sweepAbandoned() {
        if (abandoned.pending()) {
            discardAbandonedBatches();
        }
    }

    /** The earlier instances' abandoned batches go, once no late intent can still land for them. */
    private int discardAbandonedBatches() {
        try {
            return abandoned.sweep(this::intentNow, states.lateWriteBoundMs());
        } catch (IOException | RuntimeException e) {
            log.warn("Could not remove abandoned staged batches; tried again later: {}", e.toString());
            return 0;
        }
    }

    /** The batch of the task's durable intent, read from the metastore now. */
    private Set<String> intentNow() {
        TaskState.Intent intent = states.read(run.task()).state().intent();
        return intent == null ? Set.of() : Set.of(intent.batchId());
    }
}
