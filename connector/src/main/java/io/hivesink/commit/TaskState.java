package io.hivesink.commit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/**
 * What the metastore holds for one task: the offsets it committed per Kafka partition and whether it still owns
 * each, the task instance that owns the state, and the batch it is committing (its intent), if any.
 *
 * @param owner the task instance that claimed these partitions last; another instance of the same task is a zombie
 * @param intent the batch whose intent is durable but which may not be marked complete yet, or null
 * @param lastBatch the last batch this state saw complete, or null
 * @param holds compactions' holds on partitions of the tables (in no order; one per table and partition)
 */
public record TaskState(String owner, Map<TopicPartition, PartitionState> partitions, Intent intent,
        String lastBatch, List<Hold> holds) {

    /**
     * A Kafka partition's committed position ({@link #NONE} before the first commit), whether this task still owns
     * it, and the greatest event time this task committed of it since it last claimed it ({@link #NO_TIME} if none):
     * the owners' lines together tell how far in event time each partition has landed (the tables' watermarks).
     */
    public record PartitionState(long nextOffset, boolean owned, long eventTime) {
        public static final long NONE = -1;
        public static final long NO_TIME = Long.MIN_VALUE;

        public PartitionState(long nextOffset, boolean owned) {
            this(nextOffset, owned, NO_TIME);
        }

        PartitionState owned(boolean owns) {
            return new PartitionState(nextOffset, owns, eventTime);
        }
    }

    /** A batch that must be rolled forward: its id and its manifest on the FileSystem. */
    public record Intent(String batchId, String manifestPath) {
    }

    /**
     * A compaction's hold on a partition of a table ({@code docs/compaction.md}, steps 4 and 9): while
     * {@code location} is null, a batch that lands in the partition is not committed; once the compaction has
     * swapped the partition's location, {@code location} is where batches land from then on.
     *
     * @param partition the partition's path under the table ({@code day=2026-11-29}), empty if unpartitioned
     * @param since     when the compaction wrote it (epoch ms; 0 if not known): a hold held long is a stuck one
     */
    public record Hold(String table, String partition, String compaction, String location, long since) {

        public Hold(String table, String partition, String compaction, String location) {
            this(table, partition, compaction, location, 0);
        }

        public boolean released() {
            return location != null;
        }

        boolean on(String otherTable, String otherPartition) {
            return table.equals(otherTable) && partition.equals(otherPartition);
        }
    }

    public static final TaskState EMPTY = new TaskState(null, Map.of(), null, null, List.of());

    /** The order partitions are written in wherever they are listed: by topic, then partition number. */
    public static final Comparator<TopicPartition> PARTITION_ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    public TaskState {
        partitions = Map.copyOf(partitions);
        holds = List.copyOf(holds);
    }

    public TaskState(String owner, Map<TopicPartition, PartitionState> partitions, Intent intent, String lastBatch) {
        this(owner, partitions, intent, lastBatch, List.of());
    }

    /** The hold on a table's partition, or null. */
    public Hold holdOn(String table, String partition) {
        for (Hold hold : holds) {
            if (hold.on(table, partition)) {
                return hold;
            }
        }
        return null;
    }

    /** With this hold in place of any other on its table and partition. */
    public TaskState withHold(Hold hold) {
        List<Hold> next = new ArrayList<>(holds.size() + 1);
        for (Hold other : holds) {
            if (!other.on(hold.table(), hold.partition())) {
                next.add(other);
            }
        }
        next.add(hold);
        return new TaskState(owner, partitions, intent, lastBatch, next);
    }

    /** Without the released holds: those a run of this task has taken in, and that only this task removes. */
    public TaskState withoutReleasedHolds() {
        List<Hold> next = new ArrayList<>(holds);
        next.removeIf(Hold::released);
        return next.size() == holds.size() ? this : new TaskState(owner, partitions, intent, lastBatch, next);
    }

    /** Without the compaction's hold on the table's partition (a hold of another compaction stays). */
    public TaskState withoutHold(String table, String partition, String compaction) {
        List<Hold> next = new ArrayList<>(holds);
        next.removeIf(hold -> hold.on(table, partition) && hold.compaction().equals(compaction));
        return next.size() == holds.size() ? this : new TaskState(owner, partitions, intent, lastBatch, next);
    }

    public boolean owns(TopicPartition tp) {
        PartitionState state = partitions.get(tp);
        return state != null && state.owned();
    }

    public boolean ownsAny(Collection<TopicPartition> tps) {
        return tps.stream().anyMatch(this::owns);
    }

    public TaskState withIntent(Intent next) {
        return new TaskState(owner, partitions, next, lastBatch, holds);
    }

    /** The batch is complete: its offsets are committed and its intent is done; no event time is known of it. */
    public TaskState completed(String batchId, Map<TopicPartition, Long> nextOffsets) {
        return completed(batchId, nextOffsets, Map.of());
    }

    /**
     * The batch is complete: its offsets are committed and its intent is done, and its partitions have landed up to
     * these event times (the greatest of each partition's records in it; a partition absent had none).
     */
    public TaskState completed(String batchId, Map<TopicPartition, Long> nextOffsets,
            Map<TopicPartition, Long> eventTimes) {
        Map<TopicPartition, PartitionState> next = new HashMap<>(partitions);
        nextOffsets.forEach((tp, offset) -> {
            PartitionState old = next.get(tp);
            long committed = old == null ? offset : Math.max(old.nextOffset(), offset);
            long time = Math.max(old == null ? PartitionState.NO_TIME : old.eventTime(),
                    eventTimes.getOrDefault(tp, PartitionState.NO_TIME));
            next.put(tp, new PartitionState(committed, old == null || old.owned(), time));
        });
        Intent remaining = intent != null && intent.batchId().equals(batchId) ? null : intent;
        return new TaskState(owner, next, remaining, batchId, holds);
    }

    /**
     * The owned partitions among these have landed every record their logs held at {@code time} (wall clock): their
     * event time is at least that from now on, so that a partition that receives nothing holds no watermark back.
     */
    public TaskState caughtUp(Collection<TopicPartition> tps, long time) {
        Map<TopicPartition, PartitionState> next = new HashMap<>(partitions);
        for (TopicPartition tp : tps) {
            PartitionState old = next.get(tp);
            if (old != null && old.owned() && old.eventTime() < time) {
                next.put(tp, new PartitionState(old.nextOffset(), true, time));
            }
        }
        return new TaskState(owner, next, intent, lastBatch, holds);
    }

    /** The batch's intent is given up: nothing of it landed, the committed offsets stay as they are. */
    public TaskState droppedIntent(String batchId) {
        return intent != null && intent.batchId().equals(batchId) ? withIntent(null) : this;
    }

    /**
     * The partitions are committed up to these offsets from now on, wherever they were; owned as they were. Their
     * event times are forgotten: the log they are read from now (a topic created again, a log cut) is not the one
     * those times were of.
     */
    public TaskState movedTo(Map<TopicPartition, Long> offsets) {
        Map<TopicPartition, PartitionState> next = new HashMap<>(partitions);
        offsets.forEach((tp, offset) -> {
            PartitionState old = next.get(tp);
            next.put(tp, new PartitionState(offset, old == null || old.owned()));
        });
        return new TaskState(owner, next, intent, lastBatch, holds);
    }

    /** Marks the partitions as no longer owned here; their offsets stay, for the next owner to read. */
    public TaskState released(Collection<TopicPartition> tps) {
        Map<TopicPartition, PartitionState> next = new HashMap<>(partitions);
        for (TopicPartition tp : tps) {
            PartitionState old = next.get(tp);
            if (old != null && old.owned()) {
                next.put(tp, old.owned(false));
            }
        }
        return new TaskState(owner, next, intent, lastBatch, holds);
    }

    /**
     * This task instance now owns the partitions, at the given committed offsets (absent: none committed yet), with
     * no event time known until it commits some: a time this state held from an earlier ownership may be of a log
     * that was replaced since.
     */
    public TaskState claimed(String newOwner, Collection<TopicPartition> tps, Map<TopicPartition, Long> offsets) {
        Map<TopicPartition, PartitionState> next = new HashMap<>(partitions);
        for (TopicPartition tp : tps) {
            next.put(tp, new PartitionState(offsets.getOrDefault(tp, PartitionState.NONE), true));
        }
        return new TaskState(newOwner, next, intent, lastBatch, holds);
    }
}
