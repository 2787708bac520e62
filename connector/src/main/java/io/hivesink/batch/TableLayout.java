package io.hivesink.batch;

import org.apache.avro.Schema;

import io.hivesink.route.PartitionScheme;
import io.hivesink.table.PartitionSpec;

/**
 * How records of one schema land in one table: the Avro schema of the data files, the table's schema for them and the
 * partition scheme; an {@link EncodingLayout} also has the compiled encoder of Connect Structs, a
 * {@link PassthroughLayout} the reader of the fields partitioning needs from passed-through Avro datums. Built once
 * per (table, record schema) by {@link TableLayouts}; immutable and shared by the encoding threads.
 */
public sealed interface TableLayout permits EncodingLayout, PassthroughLayout {

    String table();

    /** The schema the data files are written with. */
    Schema avroSchema();

    /**
     * The table schema these records need: {@link #avroSchema()}, or for passed-through datums their writer schema
     * without the fields that are partition columns (the files keep them; Hive's reader skips them).
     */
    Schema tableSchema();

    PartitionScheme partitioner();

    default PartitionSpec partitionSpec() {
        return partitioner().spec();
    }
}
