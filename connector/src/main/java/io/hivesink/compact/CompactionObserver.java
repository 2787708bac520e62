package io.hivesink.compact;

/**
 * What a task's compactions tell its metrics ({@code docs/operations.md}): each partition compacted, each compaction
 * that did not finish, and what each retirement sweep left.
 */
public interface CompactionObserver {

    CompactionObserver NONE = new CompactionObserver() {
        @Override
        public void compacted(CompactionLog.Row row) {
        }

        @Override
        public void notFinished() {
        }

        @Override
        public void swept(Retirement.Sweep sweep) {
        }
    };

    /** A partition swapped to its merged files, as the compaction log records it. */
    void compacted(CompactionLog.Row row);

    /** A compaction undone, given up, or that found its partition held by another. */
    void notFinished();

    /** A retirement sweep: the old directories it removed, and the retirements past their time it left. */
    void swept(Retirement.Sweep sweep);
}
