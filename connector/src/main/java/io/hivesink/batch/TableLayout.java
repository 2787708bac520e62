package io.hivesink.batch;

import org.apache.avro.Schema;

import io.hivesink.avro.DatumEncoder;
import io.hivesink.route.FieldPartitioner;
import io.hivesink.route.PartitionSpec;

/**
 * How records of one Connect schema land in one table: the Avro schema of the data files, the partitioner and
 * the encoder. Built once per (table, record schema).
 */
public record TableLayout(String table, Schema avroSchema, FieldPartitioner partitioner, DatumEncoder encoder) {

    public PartitionSpec partitionSpec() {
        return partitioner.spec();
    }
}
