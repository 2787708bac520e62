package io.hivesink.batch;

import org.apache.avro.Schema;

import io.hivesink.table.PartitionSpec;

/**
 * Makes sure a table can take records of a new schema before any are encoded for it: creates the table, or evolves
 * it, or refuses. Called once per (table, record schema), from encoding threads.
 */
@FunctionalInterface
public interface TableAdmission {

    /** Admits everything: for tests and benchmarks that have no metastore. */
    TableAdmission ANY = (table, avroSchema, partitionSpec) -> {
    };

    /**
     * Readies the table for records of this schema: creates it, or evolves it, if it must.
     *
     * @throws org.apache.kafka.connect.errors.DataException if records of this schema cannot land in the table
     */
    void admit(String table, Schema avroSchema, PartitionSpec partitionSpec);
}
