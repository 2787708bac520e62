package io.hivesink.batch;

import org.apache.avro.Schema;

import io.hivesink.avro.StructEncoder;
import io.hivesink.route.FieldPartitioner;
import io.hivesink.route.PartitionSpec;

/**
 * How records of one Connect schema land in one table: the Avro schema of the data files, the partitioner and
 * the compiled encoder. Built once per (table, record schema); immutable and shared by the encoding threads.
 */
public record TableLayout(String table, Schema avroSchema, FieldPartitioner partitioner, StructEncoder encoder) {

    public PartitionSpec partitionSpec() {
        return partitioner.spec();
    }
}
