package io.hivesink.input;

import org.apache.avro.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A record value that is an Avro datum framed by Confluent's serializer, with its writer schema fetched: the datum's
 * bytes are appended to the data file as they are.
 *
 * @param value       the record value, header included
 * @param frame       where the datum sits in {@code value}, and its schema id
 * @param writer      the writer schema the id names
 * @param routeFields the field that routes the record to its table, read from the datum; null when routing by topic
 */
// the record value as Kafka handed it over: passed along, never compared or hashed
@SuppressWarnings("ArrayRecordComponent")
public record FramedDatum(byte[] value, ConfluentFrame frame, Schema writer, Struct routeFields)
        implements RecordValue {

    public int schemaId() {
        return frame.schemaId();
    }

    @Override
    public <R> R accept(Handler<R> handler) {
        return handler.framed(this);
    }

    @Override
    public String describe(SinkRecord record) {
        return RecordInput.describe(record) + " schema id=" + schemaId();
    }
}
