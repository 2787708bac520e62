package io.hivesink.task;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.Batch;
import io.hivesink.batch.RejectedRecord;

/**
 * Hands the records of a batch that cannot land to Connect's errant-record reporter (the dead-letter queue and error
 * log of the connector's errors.* settings) and waits until it has them, so that the batch's offsets are committed
 * only once every record is either in a table or reported. Connect's errors.tolerance still applies: with
 * errors.tolerance=none the reporter fails the task.
 */
final class RejectedRecords {

    private static final Logger log = LoggerFactory.getLogger(RejectedRecords.class);

    private final ErrantRecordReporter reporter;

    /** @param reporter Connect's reporter; not null */
    RejectedRecords(ErrantRecordReporter reporter) {
        this.reporter = reporter;
    }

    /** The task context's reporter, or null if the connector has no errors.deadletterqueue or errors.log settings. */
    static ErrantRecordReporter reporterOf(org.apache.kafka.connect.sink.SinkTaskContext context) {
        try {
            return context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            return null; // a worker older than Kafka 2.6
        }
    }

    void report(Batch batch) {
        List<RejectedRecord> rejected = batch.rejected();
        if (rejected.isEmpty()) {
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
