package io.hivesink.input;

import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Reads what a record's value is to the sink ({@link RecordValue}), on the task thread as the record is taken: Connect
 * data ({@code input.format=connect}, {@link ConnectInput}) or Avro framed by Confluent's serializer
 * ({@code input.format=confluent-avro}, {@link ConfluentAvroInput}).
 */
public interface RecordInput {

    /**
     * What the record's value is to the sink, read and checked on the task thread.
     *
     * @throws org.apache.kafka.connect.errors.DataException if the record cannot be stored, saying why and what to do
     * @throws org.apache.kafka.connect.errors.RetriableException if something the sink needs (the schema registry)
     *     is out of reach for now; the record is not taken and Connect delivers it again
     */
    RecordValue valueOf(SinkRecord record);

    /**
     * What the record's value is to the sink; a value that cannot be stored is an {@link UnreadableValue}, so that the
     * batch reports it with the record, in order with the others.
     *
     * @throws org.apache.kafka.connect.errors.RetriableException as {@link #valueOf} does
     */
    default RecordValue read(SinkRecord record) {
        try {
            return valueOf(record);
        } catch (DataException e) {
            return new UnreadableValue(e);
        }
    }

    /**
     * Whether the record is skipped without an error: taken (its offset moves on with the batch's) but not stored.
     * None is, unless tombstones are ignored ({@link #ignoringTombstones}).
     */
    default boolean skips(SinkRecord record) {
        return false;
    }

    /** This input, skipping records whose value is null ({@code behavior.on.null.values=ignore}). */
    default RecordInput ignoringTombstones() {
        RecordInput input = this;
        return new RecordInput() {
            @Override
            public RecordValue valueOf(SinkRecord record) {
                return input.valueOf(record);
            }

            @Override
            public boolean skips(SinkRecord record) {
                return record.value() == null;
            }
        };
    }

    /** How errors name a record: "Record topic=T partition=P offset=O". */
    static String describe(SinkRecord record) {
        return "Record topic=" + record.topic() + " partition=" + record.kafkaPartition() + " offset="
                + record.kafkaOffset();
    }
}
