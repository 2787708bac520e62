package io.hivesink.metastore;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.avro.Schema;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;

import io.hivesink.config.CompactionConfig;
import io.hivesink.table.PartitionSpec;

/** A table that exists in the metastore, with the Avro schema Hive reads its files with. */
public final class HiveTable {

    private final String name;
    private final String location;
    private final Schema avroSchema;
    private final PartitionSpec partitionSpec;
    private final StorageDescriptor storage;
    /** The generation a compacted table's partition lands in first. */
    public static final String FIRST_GENERATION = "0";

    private final boolean partitionsOutside;
    private Set<String> partitionNames;
    /** Record schemas this table's schema was found to read. */
    private final Set<Schema> admitted = ConcurrentHashMap.newKeySet();

    HiveTable(String name, String location, Schema avroSchema, PartitionSpec partitionSpec,
            StorageDescriptor storage, boolean partitionsOutside) {
        this.name = name;
        this.partitionsOutside = partitionsOutside;
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

    /**
     * Where a partition the table does not have yet is put: the path Hive gives it ({@code <table>/<path>}), or for a
     * table that is compacted, {@code partitions_of_<table>/<path>/0} beside the table's directory
     * ({@code docs/compaction.md}: the generation {@code 0}, which a compaction replaces by its own).
     *
     * @param path the partition's path, such as {@code dt=2026-11-29/hr=05}
     * @throws MetastoreException if the table is compacted and its directory has no parent to put partitions in
     */
    public String firstLocation(String path) {
        return partitionsOutside ? generation(path, FIRST_GENERATION) : location + "/" + path;
    }

    /**
     * A generation directory of one of the table's partitions: {@code partitions_of_<table>/<path>/<generation>}
     * beside the table's directory, where a compaction writes its merged files (the generation is its id).
     *
     * @throws MetastoreException if the table's directory has no parent to put partitions in
     */
    public String generation(String path, String generation) {
        Path parent = new Path(location).getParent();
        if (parent == null) {
            throw new MetastoreException("Table " + name + " is compacted (compaction.enabled), so its partitions "
                    + "live in a directory beside its own, but its directory " + location + " is the root of its "
                    + "filesystem. Give the table a directory below the root (table." + name + ".location), or turn "
                    + "compaction off for it.", null);
        }
        return new Path(parent, CompactionConfig.PARTITIONS_DIR_PREFIX + name) + "/" + path + "/" + generation;
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
