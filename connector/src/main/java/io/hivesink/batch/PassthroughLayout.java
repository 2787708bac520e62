package io.hivesink.batch;

import org.apache.avro.Schema;

import io.hivesink.avro.datum.DatumFields;
import io.hivesink.route.PartitionScheme;

/**
 * The layout of Avro datums of one writer schema passed through into a table: their bytes are copied as they are, and
 * only the fields partitioning needs are read, by {@code datumFields}.
 *
 * @param avroSchema the writer schema, which the data files are written with
 */
public record PassthroughLayout(String table, Schema avroSchema, Schema tableSchema, PartitionScheme partitioner,
        DatumFields datumFields) implements TableLayout {
}
