package io.hivesink.commit;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import io.hivesink.metastore.MetastoreException;

/**
 * A compaction's writes into the states of every task of the connector ({@code docs/compaction.md}, steps 3 and 8,
 * and the undoing of a stuck one): its hold on a partition, the hold released with the partition's new location, or
 * the hold removed. Each is the state's own conditional write (compare-and-set, or under the state's lock), made
 * again on a re-read state when another writer changed it first, so a task's intent is ordered before or after the
 * hold, never beside it. States are written lowest task first: two compactions of one partition meet in task 0's
 * state, and the second gives up there before it holds anything else. A compaction that meets another's hold
 * further on (a released hold its task's writers do not know yet) takes its own holds back and gives up too.
 */
public final class StateHolds {

    private static final int MAX_CONFLICTS = OwnState.MAX_CONFLICTS;

    private final StateTables states;

    public StateHolds(StateTables states) {
        this.states = states;
    }

    /**
     * What step 3 found: whether the hold is in every state ({@code held} false: another compaction's hold on the
     * partition was there, and this one wrote nothing), per task the batch whose intent the state held as the hold
     * was written, if any (batches that may land in the partition before it can be listed the last time), and how
     * long a write sent under a lock broken lately may still land over a state and erase the hold: where locks fence
     * the states, the compaction waits that long (0 if no lock was broken lately) and checks its holds again
     * ({@link #recheck}); {@link #NO_RECHECK} where no write lands late (compare-and-set).
     */
    public record Held(boolean held, Map<Integer, TaskState.Intent> intents, long recheckInMs) {

        /** No wait: the holds are read again at once where locks fence, and not at all where they do not. */
        static final long NO_RECHECK = -1;

        /** Whether a late write may have erased a hold: where locks fence the states, always. */
        public boolean recheck() {
            return held && recheckInMs != NO_RECHECK;
        }
    }

    /**
     * Step 3: writes the hold into every task's state, lowest task first.
     *
     * @throws MetastoreException if a state kept changing under the writes
     */
    public Held hold(TaskState.Hold hold) {
        Map<Integer, TaskState.Intent> intents = new TreeMap<>();
        Set<Integer> held = new HashSet<>();
        long[] latestBreak = {-1}; // of the states as each hold write read and wrote them
        // the states as listed after each round: one made while the holds went in (tasks.max raised) is held too
        for (List<Integer> round = List.copyOf(states.readAll().keySet()); !round.isEmpty();
                round = newTasks(held)) {
            for (int task : round) {
                if (!holdOne(task, hold, intents, latestBreak)) {
                    // met in a lower task's state by the other compaction's writes, or a released hold of an
                    // earlier one that this task's writers do not know yet: nothing of this one stays
                    remove(hold.table(), hold.partition(), hold.compaction());
                    return new Held(false, Map.of(), Held.NO_RECHECK);
                }
                held.add(task);
            }
        }
        return new Held(true, intents, lateWritesMs(latestBreak[0]));
    }

    /**
     * How long a write of any state sent under a lock broken before now may still land ({@link ProbationTerm}): a
     * holder whose lock was broken read the state before the hold, and its late write would put that state back. A
     * write under a lock taken since read the hold, and keeps it. The breaks are those the hold writes found stamped
     * or stamped themselves ({@code latestBreak}), and those the states show now: a late write that already landed
     * may have put back a state without its stamp. {@link Held#NO_RECHECK} where no write lands late.
     */
    private long lateWritesMs(long latestBreak) {
        long boundMs = states.lateWriteBoundMs();
        if (boundMs <= 0) {
            return Held.NO_RECHECK;
        }
        long now = System.currentTimeMillis();
        long leftMs = ProbationTerm.msLeft(latestBreak, boundMs, now);
        for (StateTables.Stored state : states.readAll().values()) {
            leftMs = Math.max(leftMs, ProbationTerm.msLeft(states.lockBrokenAt(state), boundMs, now));
        }
        return leftMs;
    }

    /**
     * Step 3, where locks fence, once {@link Held#recheckInMs} has passed: reads every state again, those made since
     * too. Each must still have the hold, unreleased; a late write that put a state back as its holder read it has
     * erased it there, and that task's writers may land batches in the old directory unseen, so the compaction is
     * undone ({@code held} false). The intents found that step 3 did not note are returned to be waited for too.
     */
    public Held recheck(TaskState.Hold hold, Held held) {
        Map<Integer, TaskState.Intent> intents = new TreeMap<>();
        for (Map.Entry<Integer, StateTables.Stored> stored : states.readAll().entrySet()) {
            TaskState state = stored.getValue().state();
            TaskState.Hold found = state.holdOn(hold.table(), hold.partition());
            if (found == null || found.released() || !found.compaction().equals(hold.compaction())) {
                return new Held(false, Map.of(), Held.NO_RECHECK);
            }
            TaskState.Intent intent = state.intent();
            if (intent != null && !intent.equals(held.intents().get(stored.getKey()))) {
                intents.put(stored.getKey(), intent);
            }
        }
        return new Held(true, intents, Held.NO_RECHECK);
    }

    private List<Integer> newTasks(Set<Integer> held) {
        List<Integer> tasks = new ArrayList<>(states.readAll().keySet());
        tasks.removeAll(held);
        return tasks;
    }

    /** Holds one task's state; false if another compaction's hold is there. */
    private boolean holdOne(int task, TaskState.Hold hold, Map<Integer, TaskState.Intent> intents,
            long[] latestBreak) {
        boolean[] taken = {false};
        StateTables.Stored written = change(task, state -> {
            TaskState.Hold other = state.holdOn(hold.table(), hold.partition());
            if (other != null && !other.compaction().equals(hold.compaction())) {
                taken[0] = true; // another compaction's, held or released and not yet known to its task
                return null;
            }
            return other == null ? state.withHold(hold) : state;
        }, stored -> latestBreak[0] = Math.max(latestBreak[0], states.lockBrokenAt(stored)));
        if (taken[0]) {
            return false;
        }
        if (written.state().intent() != null) {
            intents.put(task, written.state().intent());
        }
        return true;
    }

    /**
     * Takes into a task's own state the holds in the lowest task's state that it lacks, at the task's start: every
     * compaction holds that state first, so a state made after a compaction listed the states (tasks.max raised
     * while it held) is held all the same.
     */
    void copyFirstTasksHolds(OwnState own, int task) {
        Map<Integer, StateTables.Stored> all = states.readAll();
        if (all.isEmpty() || all.keySet().iterator().next() == task) {
            return;
        }
        List<TaskState.Hold> first = all.values().iterator().next().state().holds();
        if (first.stream().anyMatch(hold -> lacks(own.stored().state(), hold))) {
            change(task, state -> { // as the compactors write it: before the run's claim makes it the owner
                TaskState held = state;
                for (TaskState.Hold hold : first) {
                    if (lacks(held, hold)) {
                        held = held.withHold(hold);
                    }
                }
                return held;
            });
            own.reload();
        }
    }

    private static boolean lacks(TaskState state, TaskState.Hold hold) {
        return !hold.released() && state.holdOn(hold.table(), hold.partition()) == null;
    }

    /** The holds a task's state has now, released or not. */
    public List<TaskState.Hold> holdsIn(int task) {
        return states.read(task).state().holds();
    }

    /** The hold on the partition that a task's state has now, released or not; null if none. */
    public TaskState.Hold holdIn(int task, String table, String partition) {
        return states.read(task).state().holdOn(table, partition);
    }

    /** The batch whose intent a task's state holds now, if any: step 4 waits until a noted one is gone. */
    public TaskState.Intent intentOf(int task) {
        return states.read(task).state().intent();
    }

    /** Step 8: every state's hold of the compaction on the partition becomes released, naming its new location. */
    public void release(TaskState.Hold released) {
        if (!released.released()) {
            throw new IllegalArgumentException("A released hold names the partition's new location");
        }
        for (int task : states.readAll().keySet()) {
            change(task, state -> {
                TaskState.Hold hold = state.holdOn(released.table(), released.partition());
                boolean ours = hold != null && hold.compaction().equals(released.compaction());
                return ours && !hold.released() ? state.withHold(released) : state;
            });
        }
    }

    /** Undoing a compaction: its holds that are not released go from every state. */
    public void remove(String table, String partition, String compaction) {
        for (int task : states.readAll().keySet()) {
            change(task, state -> {
                TaskState.Hold hold = state.holdOn(table, partition);
                return hold != null && !hold.released() ? state.withoutHold(table, partition, compaction) : state;
            });
        }
    }

    /**
     * Applies a change to a task's state by its conditional write, on a re-read state after a conflict; a change
     * that returns the state unchanged writes nothing, and one that returns null gives up.
     *
     * @return the state as written or found, or null if the change gave up
     */
    private StateTables.Stored change(int task, UnaryOperator<TaskState> change) {
        return change(task, change, stored -> { });
    }

    /** The same, showing {@code seen} each state as read and as written. */
    private StateTables.Stored change(int task, UnaryOperator<TaskState> change,
            Consumer<StateTables.Stored> seen) {
        for (int attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
            StateTables.Stored current = states.read(task);
            seen.accept(current);
            TaskState next = change.apply(current.state());
            if (next == null || next.equals(current.state())) {
                return next == null ? null : current;
            }
            StateTables.Stored written = states.write(current, next);
            if (written != null) {
                seen.accept(written);
                return written;
            }
        }
        throw new MetastoreException("The state of task " + task + " kept changing while a compaction wrote its "
                + "hold into it: tried " + MAX_CONFLICTS + " times", null);
    }
}
