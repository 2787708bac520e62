package io.hivesink.metastore;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.connect.errors.ConnectException;

import io.hivesink.route.PartitionSpec;
import io.hivesink.route.PartitionValues;

/**
 * The Hive tables of one database as the connector sees them: creates a missing database or table as an external
 * Avro table, checks an existing one against the records, and registers new partitions, remembering which exist so
 * that the metastore is asked once per table, not once per batch.
 */
public final class HiveTables {

    static final String AVRO_SERDE = "org.apache.hadoop.hive.serde2.avro.AvroSerDe";
    static final String AVRO_INPUT_FORMAT = "org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat";
    static final String AVRO_OUTPUT_FORMAT = "org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat";
    static final String AVRO_SCHEMA_LITERAL = "avro.schema.literal";

    private final Metastore metastore;
    private final String database;
    private final String databaseLocation;
    private final Map<String, HiveTable> known = new HashMap<>();
    private boolean databaseChecked;

    /**
     * @param warehouseUri fully qualified root of the tables this connector creates, e.g. hdfs://nn:8020/warehouse
     */
    public HiveTables(Metastore metastore, String database, String warehouseUri) {
        this.metastore = metastore;
        this.database = database;
        this.databaseLocation = warehouseUri + "/" + database + ".db";
    }

    public String database() {
        return database;
    }

    /**
     * The table, created if missing.
     *
     * @throws ConnectException if the table exists but does not match the records' schema or partitioning
     */
    public HiveTable ensureTable(String name, Schema avroSchema, PartitionSpec partitionSpec) {
        HiveTable cached = known.get(name);
        if (cached != null && cached.avroSchema().equals(avroSchema)) {
            return cached;
        }
        ensureDatabase();
        Optional<Table> existing = metastore.getTable(database, name);
        if (existing.isEmpty()) {
            metastore.createTable(definition(name, avroSchema, partitionSpec));
            existing = metastore.getTable(database, name);
            if (existing.isEmpty()) {
                throw new MetastoreException("Table " + database + "." + name + " was created but cannot be read "
                        + "back from the metastore.", null);
            }
        }
        HiveTable table = check(existing.get(), avroSchema, partitionSpec);
        known.put(name, table);
        return table;
    }

    /**
     * A table the connector wrote to before, as it is now (for finishing a batch whose records are gone).
     *
     * @throws MetastoreException if the table does not exist any more
     */
    public HiveTable existing(String name) {
        HiveTable cached = known.get(name);
        if (cached != null) {
            return cached;
        }
        Table table = metastore.getTable(database, name).orElseThrow(() -> new MetastoreException("Table "
                + database + "." + name + " was dropped while a batch was being committed to it; re-create it "
                + "(the batch's files are in place) or restore it from its definition.", null));
        List<String> names = table.getPartitionKeys().stream().map(FieldSchema::getName).toList();
        List<String> types = table.getPartitionKeys().stream().map(FieldSchema::getType).toList();
        HiveTable wrapped = new HiveTable(table.getTableName(), table.getSd().getLocation(),
                new Schema.Parser().parse(table.getParameters().get(AVRO_SCHEMA_LITERAL)),
                new PartitionSpec(names, types), table.getSd());
        known.put(name, wrapped);
        return wrapped;
    }

    /** Registers the partitions the table does not have yet, in one call. */
    public int registerPartitions(HiveTable table, Collection<PartitionValues> partitions) {
        if (!table.partitionSpec().isPartitioned()) {
            return 0;
        }
        Set<String> existing = table.partitionNames();
        if (existing == null) {
            existing = new HashSet<>(metastore.partitionNames(database, table.name()));
            table.partitionNames(existing);
        }
        List<Partition> missing = new ArrayList<>();
        Set<String> adding = new HashSet<>();
        for (PartitionValues values : partitions) {
            if (!existing.contains(values.path()) && adding.add(values.path())) {
                missing.add(partition(table, values));
            }
        }
        if (!missing.isEmpty()) {
            metastore.addPartitions(missing);
            existing.addAll(adding);
        }
        return missing.size();
    }

    private void ensureDatabase() {
        if (databaseChecked) {
            return;
        }
        if (!metastore.databaseExists(database)) {
            metastore.createDatabase(database, databaseLocation);
        }
        databaseChecked = true;
    }

    private Table definition(String name, Schema avroSchema, PartitionSpec spec) {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(columns(avroSchema));
        sd.setLocation(databaseLocation + "/" + name);
        sd.setInputFormat(AVRO_INPUT_FORMAT);
        sd.setOutputFormat(AVRO_OUTPUT_FORMAT);
        sd.setCompressed(false);
        sd.setNumBuckets(-1);
        SerDeInfo serde = new SerDeInfo();
        serde.setName(name);
        serde.setSerializationLib(AVRO_SERDE);
        serde.setParameters(new HashMap<>(Map.of("serialization.format", "1")));
        sd.setSerdeInfo(serde);
        sd.setParameters(new HashMap<>());
        sd.setBucketCols(new ArrayList<>());
        sd.setSortCols(new ArrayList<>());

        List<FieldSchema> partitionKeys = new ArrayList<>();
        for (int i = 0; i < spec.names().size(); i++) {
            partitionKeys.add(new FieldSchema(spec.names().get(i), spec.hiveTypes().get(i), "partition column"));
        }
        Map<String, String> params = new HashMap<>();
        params.put("EXTERNAL", "TRUE");
        params.put(AVRO_SCHEMA_LITERAL, avroSchema.toString());
        params.put("created.by", "hive-sink");

        Table table = new Table();
        table.setDbName(database);
        table.setTableName(name);
        table.setOwner("hive-sink");
        table.setTableType(TableType.EXTERNAL_TABLE.name());
        table.setSd(sd);
        table.setPartitionKeys(partitionKeys);
        table.setParameters(params);
        return table;
    }

    private static List<FieldSchema> columns(Schema avroSchema) {
        List<FieldSchema> columns = new ArrayList<>();
        for (Schema.Field field : avroSchema.getFields()) {
            columns.add(new FieldSchema(field.name().toLowerCase(java.util.Locale.ROOT), HiveTypes.of(field.schema()),
                    field.doc()));
        }
        return columns;
    }

    private HiveTable check(Table table, Schema avroSchema, PartitionSpec spec) {
        String qualified = database + "." + table.getTableName();
        String literal = table.getParameters() == null ? null : table.getParameters().get(AVRO_SCHEMA_LITERAL);
        if (literal == null && table.getSd().getSerdeInfo() != null
                && table.getSd().getSerdeInfo().getParameters() != null) {
            literal = table.getSd().getSerdeInfo().getParameters().get(AVRO_SCHEMA_LITERAL);
        }
        if (literal == null || !AVRO_SERDE.equals(table.getSd().getSerdeInfo().getSerializationLib())) {
            throw new ConnectException("Table " + qualified + " exists but is not an Avro table with "
                    + AVRO_SCHEMA_LITERAL + " (SerDe " + table.getSd().getSerdeInfo().getSerializationLib()
                    + "). Drop it, or route the topic to another table with hive.table.map.");
        }
        Schema tableSchema = new Schema.Parser().parse(literal);
        if (!SchemaNormalization.toParsingForm(tableSchema).equals(SchemaNormalization.toParsingForm(avroSchema))) {
            throw new ConnectException("Table " + qualified + " has a different Avro schema than the records "
                    + "routed to it. Table: " + tableSchema + " Records: " + avroSchema
                    + ". Schema evolution is not supported yet: route the new schema to another table with "
                    + "hive.table.map, or drop the table.");
        }
        List<String> tableKeys = table.getPartitionKeys().stream().map(FieldSchema::getName).toList();
        if (!tableKeys.equals(spec.names())) {
            throw new ConnectException("Table " + qualified + " is partitioned by " + tableKeys
                    + " but partition.fields gives " + spec.names() + ". Make them match.");
        }
        return new HiveTable(table.getTableName(), table.getSd().getLocation(), avroSchema, spec, table.getSd());
    }

    /** The metastore definition of one of the table's partitions, located where Hive would put it. */
    public Partition partition(HiveTable table, PartitionValues values) {
        StorageDescriptor sd = new StorageDescriptor(table.storage());
        sd.setLocation(table.location() + "/" + values.path());
        Partition partition = new Partition();
        partition.setDbName(database);
        partition.setTableName(table.name());
        partition.setValues(new ArrayList<>(values.values()));
        partition.setSd(sd);
        partition.setParameters(new HashMap<>());
        return partition;
    }
}
