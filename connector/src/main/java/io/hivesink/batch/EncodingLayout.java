package io.hivesink.batch;

import org.apache.avro.Schema;

import io.hivesink.avro.encode.StructEncoder;
import io.hivesink.route.PartitionScheme;

/** The layout of Connect Structs in a table: encoded into Avro by the compiled {@code encoder}. */
public record EncodingLayout(String table, Schema avroSchema, PartitionScheme partitioner, StructEncoder encoder)
        implements TableLayout {

    @Override
    public Schema tableSchema() {
        return avroSchema;
    }
}
