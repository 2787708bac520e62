package io.hivesink.batch;

import org.apache.avro.Schema;
import org.apache.kafka.connect.errors.DataException;

import io.hivesink.avro.StructEncoder;
import io.hivesink.route.PartitionScheme;
import io.hivesink.route.PartitionSpec;

/**
 * How records of one Connect schema land in one table: the Avro schema of the data files, the partition scheme and
 * the compiled encoder; or, for a schema the table cannot take, why. Built once per (table, record schema);
 * immutable and shared by the encoding threads.
 */
public record TableLayout(String table, Schema avroSchema, PartitionScheme partitioner, StructEncoder encoder,
        DataException rejection) {

    public TableLayout(String table, Schema avroSchema, PartitionScheme partitioner, StructEncoder encoder) {
        this(table, avroSchema, partitioner, encoder, null);
    }

    static TableLayout rejected(String table, DataException why) {
        return new TableLayout(table, null, PartitionScheme.NONE, null, why);
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
