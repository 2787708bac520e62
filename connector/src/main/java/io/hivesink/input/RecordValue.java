package io.hivesink.input;

import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * What a record's value is to the sink, decided on the task thread as the record is taken ({@link RecordInput}):
 * Connect data to encode ({@link ConnectValue}), an Avro datum to pass through as it is ({@link FramedDatum}), or a
 * value that cannot be stored ({@link UnreadableValue}), kept in its place so that the error is reported with the
 * record, in order with the others.
 *
 * <p>Code outside this package never asks which it is: it routes by {@link #routeFields()} and does the per-kind work
 * through a {@link Handler} (Java 17 has no pattern matching over a sealed type in a switch).
 */
public sealed interface RecordValue permits ConnectValue, FramedDatum, UnreadableValue {

    /**
     * The top-level fields that routing by field reads: the whole Struct, or what was read of a datum.
     *
     * @throws org.apache.kafka.connect.errors.DataException if the value cannot be stored, saying why
     */
    Struct routeFields();

    /**
     * Hands the value to the handler's method for its kind.
     *
     * @throws org.apache.kafka.connect.errors.DataException if the value cannot be stored, saying why
     */
    <R> R accept(Handler<R> handler);

    /** How errors name the record of this value: the record, and for a framed datum its schema id. */
    default String describe(SinkRecord record) {
        return RecordInput.describe(record);
    }

    /** The work done with a value, one method per kind of value that can be stored. */
    interface Handler<R> {

        R connect(Struct value);

        R framed(FramedDatum datum);
    }
}
