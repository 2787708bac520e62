package io.hivesink.input;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

/** Values a converter has already turned into Connect data ({@code input.format=connect}): each must be a Struct. */
public final class ConnectInput implements RecordInput {

    public static final ConnectInput INSTANCE = new ConnectInput();

    private ConnectInput() {
    }

    @Override
    public ConnectValue valueOf(SinkRecord record) {
        if (record.value() == null) {
            throw tombstone();
        }
        Schema schema = record.valueSchema();
        if (schema == null) {
            throw new DataException("the record value has no schema (schemaless data). Use a converter that "
                    + "carries schemas: JsonConverter with value.converter.schemas.enable=true, or an Avro "
                    + "converter" + (record.value() instanceof byte[] ? "; or, for Avro framed by Confluent's "
                    + "serializer read with ByteArrayConverter, set input.format=confluent-avro" : "") + ".");
        }
        if (!(record.value() instanceof Struct struct)) {
            throw new DataException("the record value is a " + schema.type() + ", not a Struct. Each record must be "
                    + "a structure whose fields become table columns; wrap primitives with the HoistField "
                    + "transform" + (record.value() instanceof byte[] ? "; or, if the bytes are Avro framed by "
                    + "Confluent's serializer, set input.format=confluent-avro" : "") + ".");
        }
        return new ConnectValue(struct);
    }

    /** The error for a null value, whatever the input format. */
    public static DataException tombstone() {
        return new DataException("the record has a null value (a tombstone), which a Hive table has no row for. "
                + "Set behavior.on.null.values=ignore to skip tombstones, or dead-letter to send them to the "
                + "dead-letter queue.");
    }
}
