package io.hivesink.done;

/** Told by the done marking of what it marks (compaction takes the marked partitions from it). */
public interface DoneListener {

    /** Tells nothing. */
    DoneListener NONE = new DoneListener() {
        @Override
        public void marked(PartitionMarker.TimeTable table, long start) {
        }

        @Override
        public void resumed(PartitionMarker.TimeTable table, long markedUntil) {
        }
    };

    /** This task wrote the done row of the table's time partition starting at {@code start}. */
    void marked(PartitionMarker.TimeTable table, long start);

    /**
     * The task's first look at the table found its time partitions marked done up to {@code markedUntil}, by earlier
     * runs or other tasks.
     */
    void resumed(PartitionMarker.TimeTable table, long markedUntil);
}
