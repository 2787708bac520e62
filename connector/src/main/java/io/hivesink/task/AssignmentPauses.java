package io.hivesink.task;

import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.IllegalWorkerStateException;

/**
 * The task's partitions paused, and why: a partition resumes only once no reason holds it, so that one part of the
 * task (the memory budget, say) never resumes a partition another part (a claim that waits for the metastore) keeps
 * paused. Connect remembers what a task paused and pauses it again if it is assigned again; a partition that comes
 * back without a reason to be paused is resumed.
 */
final class AssignmentPauses {

    enum Reason {
        /** The worker's memory budget is full. */
        MEMORY,
        /** Not claimed yet: the metastore could not be reached when it was assigned. */
        UNCLAIMED,
        /** Another task claimed it; Connect has not closed it yet ({@link TakenPartitions}). */
        TAKEN,
        /** Claimed, waiting to be checked again before its records are taken ({@link Probation}). */
        PROBATION
    }

    private final Fetching flow;
    private final Map<TopicPartition, EnumSet<Reason>> reasons = new HashMap<>();
    /** Paused by this task at some point and not resumed since: Connect may pause them again when assigned. */
    private final Set<TopicPartition> pausedByTask = new HashSet<>();

    AssignmentPauses(Fetching flow) {
        this.flow = flow;
    }

    /** How many partitions the task holds paused now, for any reason. */
    int pausedCount() {
        return pausedByTask.size();
    }

    Set<TopicPartition> assignment() {
        return flow.assignment();
    }

    void pause(Reason reason, Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        for (TopicPartition tp : partitions) {
            reasons.computeIfAbsent(tp, p -> EnumSet.noneOf(Reason.class)).add(reason);
        }
        flow.pause(partitions);
        pausedByTask.addAll(partitions);
    }

    /** Lifts {@code reason}; partitions left with no reason and still assigned are resumed. */
    void resume(Reason reason, Collection<TopicPartition> partitions) {
        Set<TopicPartition> free = new HashSet<>();
        for (TopicPartition tp : partitions) {
            EnumSet<Reason> held = reasons.get(tp);
            if (held != null && held.remove(reason) && held.isEmpty()) {
                reasons.remove(tp);
                free.add(tp);
            }
        }
        free.retainAll(flow.assignment());
        if (!free.isEmpty()) {
            flow.resume(free);
            pausedByTask.removeAll(free);
        }
    }

    /** The partitions paused for {@code reason}. */
    Set<TopicPartition> pausedFor(Reason reason) {
        Set<TopicPartition> paused = new HashSet<>();
        reasons.forEach((tp, held) -> {
            if (held.contains(reason)) {
                paused.add(tp);
            }
        });
        return paused;
    }

    /** Partitions close: no reason holds them any more, and they are resumed while still assigned. */
    void closed(Collection<TopicPartition> partitions) {
        Set<TopicPartition> resume = new HashSet<>();
        for (TopicPartition tp : partitions) {
            reasons.remove(tp);
            if (pausedByTask.contains(tp)) {
                resume.add(tp);
            }
        }
        resume.retainAll(flow.assignment());
        if (!resume.isEmpty()) {
            try {
                flow.resume(resume);
                pausedByTask.removeAll(resume);
            } catch (IllegalWorkerStateException | IllegalStateException e) {
                // already gone (lost, not revoked): resumed when assigned again, see opened
            }
        }
    }

    /** Partitions were assigned: those Connect pauses again because this task once paused them are resumed. */
    void opened(Collection<TopicPartition> partitions) {
        Set<TopicPartition> resume = new HashSet<>(partitions);
        resume.retainAll(pausedByTask);
        resume.removeAll(reasons.keySet());
        if (!resume.isEmpty()) {
            flow.resume(resume);
            pausedByTask.removeAll(resume);
        }
    }
}
