package io.hivesink.batch;

import org.apache.avro.Schema;
import org.apache.kafka.connect.errors.DataException;

import io.hivesink.avro.StructEncoder;
import io.hivesink.confluent.DatumFields;
import io.hivesink.route.PartitionScheme;
import io.hivesink.table.PartitionSpec;

/**
 * How records of one schema land in one table: the Avro schema of the data files, the table's schema for them, the
 * partition scheme, and either the compiled encoder (Connect Structs) or the reader of the fields partitioning needs
 * (passed-through Avro datums); or, for a schema the table cannot take, why. Built once per (table, record schema);
 * immutable and shared by the encoding threads.
 *
 * @param avroSchema  the schema the data files are written with
 * @param tableSchema the table schema these records need: {@code avroSchema}, or for passed-through datums their
 *     writer schema without the fields that are partition columns (the files keep them; Hive's reader skips them)
 */
public record TableLayout(String table, Schema avroSchema, Schema tableSchema, PartitionScheme partitioner,
        StructEncoder encoder, DatumFields datumFields, DataException rejection) {

    public TableLayout(String table, Schema avroSchema, PartitionScheme partitioner, StructEncoder encoder) {
        this(table, avroSchema, avroSchema, partitioner, encoder, null, null);
    }

    static TableLayout passthrough(String table, Schema writer, Schema tableSchema, PartitionScheme partitioner,
            DatumFields datumFields) {
        return new TableLayout(table, writer, tableSchema, partitioner, null, datumFields, null);
    }

    static TableLayout rejected(String table, DataException why) {
        return new TableLayout(table, null, null, PartitionScheme.NONE, null, null, why);
    }

    /**
     * @throws DataException if records of this schema cannot land in the table
     */
    void requireUsable() {
        if (rejection != null) {
            throw new DataException(rejection.getMessage(), rejection);
        }
    }

    public PartitionSpec partitionSpec() {
        return partitioner.spec();
    }
}
