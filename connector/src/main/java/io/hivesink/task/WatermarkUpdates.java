package io.hivesink.task;

import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.Batch;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.done.TableWatermarks;
import io.hivesink.metrics.TaskMetrics;

/**
 * Brings the tables' watermarks up to date after each commit, on the thread that made it (the commit lane's, while
 * the task takes the next batch): the batch's event times are in its task's state by then, and every task's state is
 * read again. A failed read leaves the watermarks as they were until the next commit; it never fails the commit.
 */
final class WatermarkUpdates {

    private static final Logger log = LoggerFactory.getLogger(WatermarkUpdates.class);

    private final TableWatermarks watermarks;
    private final ExactlyOnceCommitter committer;
    private boolean failing;

    WatermarkUpdates(TableWatermarks watermarks, ExactlyOnceCommitter committer) {
        this.watermarks = watermarks;
        this.committer = committer;
    }

    /** The batch is committed: its tables with event times have watermarks from now on, and all are read again. */
    void committed(Batch batch) {
        for (String table : batch.tablesWithEventTimes()) {
            watermarks.track(table);
        }
        refresh();
    }

    /** Every task's state is read again, and the watermarks of the tables kept computed from it. */
    void refresh() {
        Set<String> tracked = watermarks.all().keySet();
        if (tracked.isEmpty()) {
            return;
        }
        try {
            watermarks.update(committer.landedEventTimes());
            if (failing) {
                log.info("The watermarks of {} are up to date again", tracked);
                failing = false;
            }
        } catch (RuntimeException e) {
            if (!failing) {
                log.warn("Could not read the task states to bring the watermarks of {} up to date; they stay as "
                        + "they were until a later commit reads them: {}", tracked, e.toString());
                failing = true;
            }
        }
    }

    /** Each table with a watermark has its gauges. */
    void report(TaskMetrics metrics) {
        metrics.tableWatermarks(watermarks.all().keySet(), watermarks::of);
    }
}
