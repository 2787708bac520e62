package io.hivesink.task;

import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The heap that batches may hold, shared by every hive-sink task in one JVM. Connect runs many tasks, of many
 * connectors, in one worker, and each holds its open batch in memory: without a common limit their batches add up
 * past the heap however each is sized. Each task holds a {@link Share}, says what its batches hold now, and asks what
 * to do once the budget is full: the task holding at least the average of what the holders hold gives its memory
 * back (closes and commits its open batch), the others hold back (pause their partitions) until the budget has room
 * again. As the largest holder is always at or above the average, someone always gives memory back. A task whose
 * commits fail (its metastore or HDFS away) cannot give memory back by committing: it is left out of the choice, so
 * that the tasks that can commit release theirs, and it drops its batches once it has held the budget full for a
 * while ({@code MemoryGate}).
 *
 * <p>The budget is the smallest that any running task was configured with ({@code 0}: {@link #DEFAULT_HEAP_FRACTION}
 * of the max heap), so a connector cannot raise the limit others count on. Batches are counted, and what a batch's
 * commit takes to write its files (a Parquet row group, ORC stripes: {@code TableFileWriter.writingBytes}); Connect's
 * consumers, records in flight to the encoder and the file system's buffers come on top (the margin).
 */
public final class MemoryBudget {

    /** The budget, as a share of the max heap, unless configured. */
    public static final double DEFAULT_HEAP_FRACTION = 0.4;
    /** Tasks held back resume once the budget is used below this share of it, so they do not flap at the limit. */
    public static final double RESUME_BELOW = 0.9;
    /** What a record of a batch holds beyond its encoded bytes: its end offset and its file group. */
    private static final long BYTES_PER_RECORD = 8;

    private static final MemoryBudget WORKER = new MemoryBudget(Runtime.getRuntime().maxMemory());

    private final long maxHeapBytes;
    private final Set<Share> shares = ConcurrentHashMap.newKeySet();

    /** The budget of this JVM: every task of every hive-sink connector loaded by the same plugin class loader. */
    public static MemoryBudget ofWorker() {
        return WORKER;
    }

    public MemoryBudget(long maxHeapBytes) {
        this.maxHeapBytes = maxHeapBytes;
    }

    /** The heap held by a batch of this many encoded bytes and records. */
    public static long heapBytes(long encodedBytes, long records) {
        return encodedBytes + BYTES_PER_RECORD * records;
    }

    /**
     * A task's share of the budget, until it is closed.
     *
     * @param configuredBytes the task's configured budget for the whole JVM, 0 for the default
     */
    public Share join(String owner, long configuredBytes) {
        long limit = configuredBytes > 0 ? configuredBytes : defaultBytes();
        Share share = new Share(owner, limit);
        shares.add(share);
        return share;
    }

    public long defaultBytes() {
        return (long) (maxHeapBytes * DEFAULT_HEAP_FRACTION);
    }

    public long maxHeapBytes() {
        return maxHeapBytes;
    }

    /** The smallest budget any task set; the default if no task holds a share. */
    public long limit() {
        long limit = Long.MAX_VALUE;
        for (Share share : shares) {
            limit = Math.min(limit, share.limit);
        }
        return limit == Long.MAX_VALUE ? defaultBytes() : limit;
    }

    /** What the tasks' batches hold now. */
    public long used() {
        long used = 0;
        for (Share share : shares) {
            used += share.held;
        }
        return used;
    }

    /** Used, limit and holders, for log lines: {@code 412.0 MiB of 409.6 MiB, held by 4 tasks}. */
    public String describe() {
        int holders = 0;
        for (Share share : shares) {
            if (share.held > 0) {
                holders++;
            }
        }
        return mib(used()) + " of " + mib(limit()) + ", held by " + holders + (holders == 1 ? " task" : " tasks");
    }

    public static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
    }

    /** One task's part: what its batches hold, and its configured budget. */
    public final class Share implements AutoCloseable {

        private final String owner;
        private final long limit;
        private volatile long held;
        private volatile boolean canCommit = true;

        private Share(String owner, long limit) {
            this.owner = owner;
            this.limit = limit;
        }

        /** What the task's batches hold now (the open batch, and a closed one until it is committed or dropped). */
        public void hold(long bytes) {
            held = bytes;
        }

        public long held() {
            return held;
        }

        /** Whether the task's commits go through: only a task that can commit gives memory back by committing. */
        public void canCommit(boolean can) {
            canCommit = can;
        }

        /** The budget is used up: the holders together hold more than it. */
        public boolean full() {
            return used() > limit();
        }

        /** The budget has room again for tasks held back. */
        public boolean hasRoom() {
            return used() < RESUME_BELOW * limit();
        }

        /**
         * The budget is full and this task, which can commit, holds at least the average of what the holders that
         * can commit hold: it should give its memory back now.
         */
        public boolean shouldRelease() {
            long mine = held;
            if (mine == 0 || !canCommit) {
                return false;
            }
            long used = 0;
            long committable = 0;
            int holders = 0;
            for (Share share : shares) {
                long theirs = share.held;
                used += theirs;
                if (theirs > 0 && share.canCommit) {
                    committable += theirs;
                    holders++;
                }
            }
            return used > limit() && mine * holders >= committable;
        }

        public MemoryBudget budget() {
            return MemoryBudget.this;
        }

        @Override
        public void close() {
            shares.remove(this);
        }

        @Override
        public String toString() {
            return owner + " holding " + mib(held);
        }
    }
}
