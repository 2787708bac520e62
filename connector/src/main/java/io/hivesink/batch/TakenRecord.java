package io.hivesink.batch;

import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.input.RecordValue;

/**
 * A record taken into the open batch, as the task thread left it for an encoding thread.
 *
 * @param value what the record's value is to the sink, read as it was taken
 * @param table the table the task thread routed it to, or null if routing failed there (the encoder routes it again,
 *     and so reports the error with the record)
 */
record TakenRecord(SinkRecord record, RecordValue value, String table) {
}
