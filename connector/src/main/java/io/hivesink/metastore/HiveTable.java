package io.hivesink.metastore;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.avro.Schema;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;

import io.hivesink.table.PartitionSpec;

/** A table that exists in the metastore, with the Avro schema Hive reads its files with. */
public final class HiveTable {

    private final String name;
    private final String location;
    private final Schema avroSchema;
    private final PartitionSpec partitionSpec;
    private final StorageDescriptor storage;
    private Set<String> partitionNames;
    /** Record schemas this table's schema was found to read. */
    private final Set<Schema> admitted = ConcurrentHashMap.newKeySet();

    HiveTable(String name, String location, Schema avroSchema, PartitionSpec partitionSpec,
            StorageDescriptor storage) {
        this.name = name;
        this.location = location;
        this.avroSchema = avroSchema;
        this.partitionSpec = partitionSpec;
        this.storage = storage;
    }

    public String name() {
        return name;
    }

    /** Fully qualified location of the table's directory. */
    public String location() {
        return location;
    }

    public Schema avroSchema() {
        return avroSchema;
    }

    boolean admits(Schema recordSchema) {
        return admitted.contains(recordSchema);
    }

    void admit(Schema recordSchema) {
        admitted.add(recordSchema);
    }

    public PartitionSpec partitionSpec() {
        return partitionSpec;
    }

    StorageDescriptor storage() {
        return storage;
    }

    /** Names of the partitions known to exist, or null before they were first listed. */
    Set<String> partitionNames() {
        return partitionNames;
    }

    void partitionNames(Set<String> names) {
        this.partitionNames = names;
    }
}
