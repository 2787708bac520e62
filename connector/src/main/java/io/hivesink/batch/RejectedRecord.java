package io.hivesink.batch;

import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

/** A record that cannot land in any table, and why; it goes to the errant-record reporter (dead-letter queue). */
public record RejectedRecord(SinkRecord record, DataException error) {
}
