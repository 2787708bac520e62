package io.hivesink.input;

import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * A value that cannot be stored (a tombstone, schemaless data, a value that is not Confluent-framed Avro, ...):
 * everything asked of it throws why.
 */
public record UnreadableValue(DataException why) implements RecordValue {

    @Override
    public Struct routeFields() {
        throw why;
    }

    @Override
    public <R> R accept(Handler<R> handler) {
        throw why;
    }
}
