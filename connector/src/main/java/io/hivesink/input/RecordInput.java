package io.hivesink.input;

import org.apache.kafka.connect.sink.SinkRecord;

/**
 * What a record's value is to the sink, decided on the task thread as the record is taken: a Connect
 * {@link org.apache.kafka.connect.data.Struct} to encode, or an already-encoded Avro datum to pass through
 * ({@link io.hivesink.confluent.FramedDatum}).
 */
public interface RecordInput {

    /**
     * What the record's value is to the sink, read and checked on the task thread.
     *
     * @throws org.apache.kafka.connect.errors.DataException if the record cannot be stored, saying why and what to do
     * @throws org.apache.kafka.connect.errors.RetriableException if something the sink needs (the schema registry)
     *     is out of reach for now; the record is not taken and Connect delivers it again
     */
    Object valueOf(SinkRecord record);

    /** How errors name a record: "Record topic=T partition=P offset=O". */
    static String describe(SinkRecord record) {
        return "Record topic=" + record.topic() + " partition=" + record.kafkaPartition() + " offset="
                + record.kafkaOffset();
    }
}
