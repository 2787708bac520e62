package io.hivesink.input;

import org.apache.kafka.connect.data.Struct;

/** A value a converter has already turned into Connect data: encoded into Avro by the sink. */
public record ConnectValue(Struct struct) implements RecordValue {

    @Override
    public Struct routeFields() {
        return struct;
    }

    @Override
    public <R> R accept(Handler<R> handler) {
        return handler.connect(struct);
    }
}
