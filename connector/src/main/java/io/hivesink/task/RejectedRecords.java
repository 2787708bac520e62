package io.hivesink.task;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.Batch;
import io.hivesink.batch.RejectedRecord;
import io.hivesink.metrics.TaskMetrics;

/**
 * Hands the records of a batch that cannot land to Connect's errant-record reporter (the dead-letter queue and error
 * log of the connector's errors.* settings) and waits until it has them, so that the batch's offsets are committed
 * only once every record is either in a table or reported. Connect's errors.tolerance still applies: with
 * errors.tolerance=none the reporter fails the task. With errors.tolerance=all and neither a dead-letter topic nor
 * the error log, Connect hands the task no reporter; as Connect itself does with records its converters cannot read,
 * the records are then skipped, but each is logged at WARN, naming it, and counted.
 */
final class RejectedRecords {

    private static final Logger log = LoggerFactory.getLogger(RejectedRecords.class);
    static final String ERRORS_TOLERANCE = "errors.tolerance";

    /** Connect's reporter, or null to skip records. */
    private final ErrantRecordReporter reporter;
    private long skipped;

    /** @param reporter Connect's reporter; null to skip and log the records instead */
    RejectedRecords(ErrantRecordReporter reporter) {
        this.reporter = reporter;
    }

    /**
     * What becomes of records that cannot land, from the task's context and the connector's errors.* settings:
     * reported, skipped (errors.tolerance=all without a reporter), or null: the first one fails the task.
     */
    static RejectedRecords of(org.apache.kafka.connect.sink.SinkTaskContext context, Map<String, String> props) {
        ErrantRecordReporter reporter = reporterOf(context);
        if (reporter != null) {
            return new RejectedRecords(reporter);
        }
        if (toleratesAll(props)) {
            log.info("errors.tolerance=all without errors.deadletterqueue.topic.name or errors.log.enable: records "
                    + "that cannot land are skipped, each logged at WARN");
            return new RejectedRecords(null);
        }
        return null;
    }

    /** Whether the connector lets records that cannot land pass ({@code errors.tolerance=all}). */
    static boolean toleratesAll(Map<String, String> props) {
        return "all".equalsIgnoreCase(props.getOrDefault(ERRORS_TOLERANCE, "none").trim());
    }

    /** Records skipped so far (errors.tolerance=all without a reporter). */
    long skipped() {
        return skipped;
    }

    /** The task context's reporter, or null if the connector has no errors.deadletterqueue or errors.log settings. */
    static ErrantRecordReporter reporterOf(org.apache.kafka.connect.sink.SinkTaskContext context) {
        try {
            return context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            return null; // a worker older than Kafka 2.6
        }
    }

    /** Reports the batch's rejected records, or skips them, and counts them in the metrics either way. */
    void report(Batch batch, TaskMetrics metrics) {
        hand(batch);
        if (reporter == null) {
            metrics.skipped(batch.rejected().size());
        } else {
            metrics.deadLettered(batch.rejected().size());
        }
    }

    private void hand(Batch batch) {
        List<RejectedRecord> rejected = batch.rejected();
        if (rejected.isEmpty()) {
            return;
        }
        if (reporter == null) {
            for (RejectedRecord record : rejected) {
                skipped++;
                log.warn("Skipped a record that cannot land (errors.tolerance=all, no dead-letter queue; {} skipped "
                        + "so far): {}", skipped, record.error().getMessage());
            }
            return;
        }
        List<Future<Void>> sent = new ArrayList<>(rejected.size());
        for (RejectedRecord record : rejected) {
            sent.add(reporter.report(record.record(), record.error()));
        }
        for (int i = 0; i < sent.size(); i++) {
            try {
                sent.get(i).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ConnectException("Interrupted while reporting rejected records", e);
            } catch (ExecutionException e) {
                throw new ConnectException("The errant-record reporter could not take "
                        + rejected.get(i).error().getMessage() + ": " + e.getCause(), e.getCause());
            }
        }
        log.warn("Batch {}: {} record(s) cannot land in a table and went to the errant-record reporter "
                + "(dead-letter queue); the first: {}", batch.id(), rejected.size(),
                rejected.get(0).error().getMessage());
    }
}
