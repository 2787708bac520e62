package io.hivesink.commit;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;

import org.apache.kafka.common.TopicPartition;

import io.hivesink.metastore.MetastoreException;

/**
 * This task run's own state as last read or written. Every change to it is a conditional write that first checks
 * that this run still owns the task and the partitions the change needs, and re-reads the state after a conflict:
 * the one place a zombie finds out it was fenced, and a live task that another task took partitions from.
 */
final class OwnState {

    static final int MAX_CONFLICTS = 20;

    private final StateTables states;
    private final TaskRun run;
    /** Replaced by each commit; volatile, since the task thread reads the committed offsets while a commit runs. */
    private volatile StateTables.Stored stored;
    /**
     * Whether a write failed without saying whether it landed (an answer lost after the metastore made it): the
     * intent is then read again before it is used, or a batch whose intent is in fact durable would be staged again
     * under it (on S3, its uploads aborted).
     */
    private volatile boolean stale;

    OwnState(StateTables states, TaskRun run) {
        this.states = states;
        this.run = run;
    }

    StateTables.Stored stored() {
        return stored;
    }

    void set(StateTables.Stored stored) {
        this.stored = stored;
    }

    void reload() {
        stored = states.read(run.task());
        stale = false;
    }

    TaskState.Intent intent() {
        if (stale) {
            reload();
        }
        return stored.state().intent();
    }

    /** The committed offsets of the partitions this task owns. */
    Map<TopicPartition, Long> committedOffsets() {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        stored.state().partitions().forEach((tp, state) -> {
            if (state.owned() && state.nextOffset() != TaskState.PartitionState.NONE) {
                offsets.put(tp, state.nextOffset());
            }
        });
        return offsets;
    }

    /** Per partition this task owns, as its state was last written or read, a value of its line. */
    Map<TopicPartition, Long> perOwned(ToLongFunction<TaskState.PartitionState> value) {
        Map<TopicPartition, Long> values = new HashMap<>();
        stored.state().partitions().forEach((tp, state) -> {
            if (state.owned()) {
                values.put(tp, value.applyAsLong(state));
            }
        });
        return values;
    }

        /** The partitions this task owns, as its state was last read. */
    Set<TopicPartition> owned() {
        Set<TopicPartition> owned = new HashSet<>();
        stored.state().partitions().forEach((tp, state) -> {
            if (state.owned()) {
                owned.add(tp);
            }
        });
        return owned;
    }

    /** Throws if another instance runs the task now, as the state was last read. */
    void requireOwner() {
        if (!run.instance().equals(stored.state().owner())) {
            throw new TaskFencedException("Task " + run.task() + " of connector " + run.connector() + " was "
                    + "fenced: another instance (" + stored.state().owner() + ") runs it now. This instance ("
                    + run.instance() + ") stops without committing.");
        }
    }

    /**
     * Applies a change by a conditional write, re-reading the state after a conflict.
     *
     * @param mustOwn partitions this task must still own for the change to be made
     * @throws TaskFencedException      if another instance took over the task
     * @throws PartitionsTakenException if another task claimed some of {@code mustOwn}
     */
    void update(UnaryOperator<TaskState> change, Set<TopicPartition> mustOwn) {
        for (int attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
            if (attempt > 0) {
                reload();
            }
            requireOwner();
            Set<TopicPartition> taken = new TreeSet<>(TaskState.PARTITION_ORDER);
            for (TopicPartition tp : mustOwn) {
                if (!stored.state().owns(tp)) {
                    taken.add(tp);
                }
            }
            if (!taken.isEmpty()) {
                throw new PartitionsTakenException("Another task of connector " + run.connector() + " claimed "
                        + taken + " from task " + run.task() + " (most likely Kafka's group gave them away: a poll "
                        + "interval overrun or a lost consumer session). The change is not made; their owner "
                        + "resumes them from the last committed offsets.", taken);
            }
            TaskState changed = change.apply(stored.state());
            StateTables.Stored next;
            try {
                next = states.write(stored, changed);
            } catch (RuntimeException e) {
                stale = true;
                throw e;
            }
            if (next != null) {
                stored = next;
                return;
            }
        }
        throw new MetastoreException("The state of task " + run.task() + " of " + run.connector() + " kept changing "
                + "under it in " + MAX_CONFLICTS + " attempts.", null);
    }
}
