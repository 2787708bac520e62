package io.hivesink.metastore;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.apache.avro.Schema;
import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.config.TableConfig;
import io.hivesink.config.TablesConfig;
import io.hivesink.table.PartitionSpec;
import io.hivesink.table.PartitionValues;

/**
 * The Hive tables of one database as the connector sees them: creates a missing database or table as an external
 * table of its format (Avro, Parquet or ORC), checks an existing one against the records, and registers new
 * partitions ({@link PartitionRegistrar}). Every table keeps its
 * Avro schema in {@code avro.schema.literal}, whatever its format: the schema its evolution merges into, and for an
 * Avro table the schema Hive reads its files with.
 *
 * <p>Several tasks (and connectors) may evolve one table at once: task A widens a column while task B adds one. Each
 * evolution is therefore conditional on the schema it was merged from: by compare-and-set on the table's schema
 * fingerprint, or, on a metastore that does not check compare-and-set, under the table's lock ({@link TableGuard});
 * the loser reads the winner's schema and merges its change into it. A table this task cached is read again at every
 * commit ({@link #refresh}): a schema changed since by another task or by hand is checked again before the commit.
 */
public final class HiveTables {

    static final String AVRO_SCHEMA_LITERAL = "avro.schema.literal";
    /** A fingerprint of the schema hive-sink last wrote to the table, which its next evolution expects to find. */
    static final String SCHEMA_FINGERPRINT = "hive-sink.schema-fingerprint";

    private static final Logger log = LoggerFactory.getLogger(HiveTables.class);
    private static final int MAX_EVOLUTION_ATTEMPTS = 5;

    private final Metastore metastore;
    private final Function<String, TableConfig> optionsFor;
    private final String database;
    private final String databaseLocation;
    private final Map<String, HiveTable> known = new HashMap<>();
    private final PartitionRegistrar registrar;
    private final AvroFieldsCheck avroFields;
    private boolean databaseChecked;
    /** Null: evolutions are made by compare-and-set. */
    private TableGuard lockGuard;

    /**
     * @param warehouseUri fully qualified root of the tables this connector creates, e.g. hdfs://nn:8020/warehouse
     * @param optionsFor per table name: where to create it, its properties, whether its schema may evolve
     */
    public HiveTables(Metastore metastore, String database, String warehouseUri,
            Function<String, TableConfig> optionsFor) {
        this.optionsFor = optionsFor;
        this.metastore = metastore;
        this.database = database;
        this.databaseLocation = warehouseUri + "/" + database + ".db";
        this.registrar = new PartitionRegistrar(metastore, database);
        this.avroFields = new AvroFieldsCheck(metastore);
    }

    public String database() {
        return database;
    }

    /**
     * The registered locations of those of the table's partitions ({@code a=1/b=x}) that exist, by name; read
     * {@link PartitionRegistrar#PARTITIONS_PER_CALL} names per call: Hive 4.0.1 on Derby fails a call of a thousand
     * names (its query nests an OR per name, too deep for Derby's parser).
     */
    public Map<String, String> locationsOf(HiveTable table, List<String> names) {
        Map<String, String> locations = new HashMap<>();
        int perCall = PartitionRegistrar.PARTITIONS_PER_CALL;
        for (int from = 0; from < names.size(); from += perCall) {
            List<String> call = names.subList(from, Math.min(names.size(), from + perCall));
            for (Partition partition : metastore.partitionsByNames(database, table.name(), call)) {
                locations.put(new PartitionValues(table.partitionSpec().names(), partition.getValues()).path(),
                        partition.getSd().getLocation());
            }
        }
        return locations;
    }

    /** Evolves tables under their metastore lock from now on, on a metastore that does not check compare-and-set. */
    public synchronized void evolveUnderLocks(TableGuard guard) {
        this.lockGuard = guard;
    }

    /**
     * Reads the cached tables among {@code names} again, in one call, and forgets those whose schema, columns or file
     * format changed since (another task evolved it, or a user altered it): their next {@link #ensureTable} checks
     * them again, so that a table altered by hand into one the connector must not write (columns reordered under
     * ORC's positional readers, another file format) is refused at the next commit, not at the next restart.
     */
    public synchronized void refresh(Collection<String> names) {
        List<String> cached = names.stream().filter(known::containsKey).toList();
        if (cached.isEmpty()) {
            return;
        }
        for (Table table : metastore.getTables(database, cached)) {
            String name = cached.stream().filter(n -> n.equalsIgnoreCase(table.getTableName())).findFirst()
                    .orElse(table.getTableName());
            HiveTable known = this.known.get(name);
            String literal = avroLiteral(table);
            if (known != null && (literal == null || !parsesTo(literal, known.avroSchema())
                    || !sameLayout(table.getSd(), known.storage()))) {
                this.known.remove(name);
                log.info("The schema, columns or file format of table {}.{} changed since this task read it (another "
                        + "task evolved it, or it was altered by hand); it is checked again against the records",
                        database, name);
            }
        }
    }

    /** Whether a table stores its files as it did: the same SerDe and input format, the same columns in order. */
    private static boolean sameLayout(StorageDescriptor now, StorageDescriptor then) {
        return serde(now).equals(serde(then)) && String.valueOf(now.getInputFormat())
                .equals(String.valueOf(then.getInputFormat())) && columnNames(now).equals(columnNames(then));
    }

    private static String serde(StorageDescriptor sd) {
        return sd.getSerdeInfo() == null ? "" : String.valueOf(sd.getSerdeInfo().getSerializationLib());
    }

    private static List<String> columnNames(StorageDescriptor sd) {
        return sd.getCols() == null ? List.of() : sd.getCols().stream()
                .map(column -> column.getName().toLowerCase(java.util.Locale.ROOT)).toList();
    }

    private static boolean parsesTo(String literal, Schema schema) {
        try {
            return new Schema.Parser().parse(literal).equals(schema);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * The table, created if missing, able to read records of {@code recordSchema}: if it cannot yet and the change is
     * compatible, the table (and with it every partition) is altered first. Thread-safe: encoding threads admit new
     * record schemas while the task thread commits.
     *
     * @throws DataException if records of this schema cannot land in the table (incompatible schema, or evolution
     *     turned off), saying why and what to do
     * @throws ConnectException if the table exists but is not a table the connector can write (not Avro, other
     *     partition columns)
     */
    public synchronized HiveTable ensureTable(String name, Schema recordSchema, PartitionSpec partitionSpec) {
        HiveTable cached = known.get(name);
        if (cached != null && cached.admits(recordSchema)) {
            checkPartitionTypes(cached, partitionSpec);
            return cached;
        }
        String unqueryable = HiveTypes.unqueryable(recordSchema);
        if (unqueryable != null) {
            throw new DataException("Table " + database + "." + name + " cannot hold the record: " + unqueryable
                    + ". Flatten the records upstream (a Flatten transform), or send them to another sink.");
        }
        String collision = HiveTypes.caseCollision(recordSchema);
        if (collision != null) {
            throw new DataException("Table " + database + "." + name + " cannot hold the record: " + collision
                    + ". Rename one of them upstream (the ReplaceField transform), or send such records elsewhere.");
        }
        TableConfig options = optionsFor.apply(name);
        TableFormat format = TableFormat.named(options.format());
        String unwritable = format.unwritable(recordSchema);
        if (unwritable != null) {
            throw new DataException("Table " + database + "." + name + " cannot hold the record: " + unwritable
                    + ". Change the records upstream, or route them to a table of format avro.");
        }
        ensureDatabase();
        for (int attempt = 1; ; attempt++) {
            Table table = metastore.getTable(database, name).orElse(null);
            if (table == null) {
                metastore.createTable(definition(name, recordSchema, partitionSpec, options));
                table = metastore.getTable(database, name).orElseThrow(() -> new MetastoreException("Table "
                        + database + "." + name + " was created but cannot be read back from the metastore.", null));
            }
            Schema tableSchema = checkedSchema(table, partitionSpec, options.format());
            SchemaEvolution.Outcome outcome = SchemaEvolution.evolve(tableSchema, recordSchema, format.widens());
            if (outcome instanceof SchemaEvolution.AlreadyReadable) {
                HiveTable admitted = cached != null && cached.avroSchema().equals(tableSchema) ? cached
                        : wrap(table, tableSchema);
                checkPartitionTypes(admitted, partitionSpec);
                admitted.admit(recordSchema);
                known.put(name, admitted);
                if (format == TableFormat.AVRO) {
                    avroFields.check(database, name);
                }
                return admitted;
            }
            if (outcome instanceof SchemaEvolution.Incompatible incompatible) {
                throw new DataException("The record's schema is incompatible with table " + database + "." + name
                        + ": " + incompatible.reason() + ". Send such records to another table (route them "
                        + "elsewhere), or change the table by hand.");
            }
            SchemaEvolution.Evolve evolve = (SchemaEvolution.Evolve) outcome;
            if (!options.schemaEvolution()) {
                throw new DataException("Table " + database + "." + name + " would need a schema change for this "
                        + "record (" + String.join("; ", evolve.changes()) + "), and schema.evolution is none. "
                        + "Set schema.evolution=compatible, or change the table by hand.");
            }
            if (attempt > MAX_EVOLUTION_ATTEMPTS) {
                throw new MetastoreException("Table " + database + "." + name + " kept changing while the "
                        + "connector evolved its schema (" + MAX_EVOLUTION_ATTEMPTS + " attempts).", null);
            }
            if (alterSchemaIfUnchanged(table, evolve.schema())) {
                log.info("Evolved table {}.{} for new records: {}; its partitions follow (cascade)", database, name,
                        String.join("; ", evolve.changes()));
            } else {
                log.info("Table {}.{} was evolved by another writer while this task evolved it; merging again "
                        + "from its new schema", database, name);
            }
            // read back: what was written, or the other writer's schema to merge into
        }
    }

    /** A record whose partition values the table's partition columns cannot hold is a bad record. */
    private void checkPartitionTypes(HiveTable table, PartitionSpec records) {
        String mismatch = table.partitionSpec().mismatchWith(records);
        if (mismatch != null) {
            throw new DataException("Table " + database + "." + table.name() + " cannot hold the record: "
                    + mismatch + ", which Hive would read as NULL. Give the partition field the column's type "
                    + "upstream (a Cast transform), or route such records to another table.");
        }
    }

    /**
     * Alters the table to {@code schema} if its schema is still the one {@code read} had: by compare-and-set on its
     * fingerprint, or under its lock. A table made before fingerprints were kept is altered unconditionally once.
     *
     * @return false if another writer changed the table's schema first: nothing was written
     */
    private boolean alterSchemaIfUnchanged(Table read, Schema schema) {
        Table altered = read.deepCopy();
        altered.getParameters().put(AVRO_SCHEMA_LITERAL, schema.toString());
        altered.getParameters().put(SCHEMA_FINGERPRINT, fingerprint(schema));
        Map<String, String> serdeParameters = altered.getSd().getSerdeInfo().getParameters();
        if (serdeParameters != null && serdeParameters.containsKey(AVRO_SCHEMA_LITERAL)) {
            serdeParameters.put(AVRO_SCHEMA_LITERAL, schema.toString());
        }
        altered.getSd().setCols(columns(schema));
        if (lockGuard != null) {
            String readLiteral = avroLiteral(read);
            return lockGuard.underLock(database, read.getTableName(), lock -> {
                Table now = metastore.getTable(database, read.getTableName()).orElse(null);
                return now != null && java.util.Objects.equals(avroLiteral(now), readLiteral)
                        && metastore.alterTableUnderLock(lock, altered, true);
            });
        }
        String expected = read.getParameters().get(SCHEMA_FINGERPRINT);
        if (expected == null) {
            metastore.alterTableCascade(altered);
            return true;
        }
        return metastore.alterTableCascadeIf(altered, SCHEMA_FINGERPRINT, expected).isWritten();
    }

    /** A short fingerprint of the schema, kept in the table to make its next evolution conditional. */
    static String fingerprint(Schema schema) {
        return Long.toHexString(org.apache.avro.SchemaNormalization.parsingFingerprint64(schema)) + "-"
                + Integer.toHexString(schema.toString().hashCode());
    }

    /**
     * A table the connector wrote to before, as it is now (for finishing a batch whose records are gone).
     *
     * @throws MetastoreException if the table does not exist any more
     */
    public synchronized HiveTable existing(String name) {
        HiveTable cached = known.get(name);
        if (cached != null) {
            return cached;
        }
        Table table = metastore.getTable(database, name).orElseThrow(() -> new MetastoreException("Table "
                + database + "." + name + " was dropped while a batch was being committed to it; re-create it "
                + "(the batch's files are in place) or restore it from its definition.", null));
        HiveTable wrapped = wrap(table, new Schema.Parser().parse(avroLiteral(table)));
        known.put(name, wrapped);
        return wrapped;
    }

    /**
     * Registers the partitions the table does not have yet, with the table's columns as they are now
     * ({@link PartitionRegistrar}); returns how many it added.
     */
    public synchronized int registerPartitions(HiveTable table, Collection<PartitionValues> partitions) {
        return registrar.register(table, partitions, false);
    }

    /**
     * As {@link #registerPartitions(HiveTable, Collection)}, and where {@code again}, the partitions that exist are
     * given the table's columns if they lack them: an earlier try may have added them just before an evolution.
     */
    public synchronized int registerPartitions(HiveTable table, Collection<PartitionValues> partitions,
            boolean again) {
        return registrar.register(table, partitions, again);
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

    private Table definition(String name, Schema avroSchema, PartitionSpec spec, TableConfig options) {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(columns(avroSchema));
        sd.setLocation(options.location() != null ? options.location() : databaseLocation + "/" + name);
        TableFormat format = TableFormat.named(options.format());
        sd.setInputFormat(format.inputFormat);
        sd.setOutputFormat(format.outputFormat);
        sd.setCompressed(false);
        sd.setNumBuckets(-1);
        SerDeInfo serde = new SerDeInfo();
        serde.setName(name);
        serde.setSerializationLib(format.serde);
        serde.setParameters(new HashMap<>(Map.of("serialization.format", "1")));
        sd.setSerdeInfo(serde);
        sd.setParameters(new HashMap<>());
        sd.setBucketCols(new ArrayList<>());
        sd.setSortCols(new ArrayList<>());

        List<FieldSchema> partitionKeys = new ArrayList<>();
        for (int i = 0; i < spec.names().size(); i++) {
            partitionKeys.add(new FieldSchema(spec.names().get(i), spec.hiveTypes().get(i), "partition column"));
        }
        Map<String, String> params = new HashMap<>(options.tableProperties());
        params.put("EXTERNAL", "TRUE");
        params.put(AVRO_SCHEMA_LITERAL, avroSchema.toString());
        params.put(SCHEMA_FINGERPRINT, fingerprint(avroSchema));
        params.put("created.by", "hive-sink");
        format.putCompression(params, options);

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

    /**
     * The table's Avro schema, after checking that the connector can write the table at all, in {@code format}.
     */
    private Schema checkedSchema(Table table, PartitionSpec spec, String format) {
        String qualified = database + "." + table.getTableName();
        String literal = avroLiteral(table);
        String serde = table.getSd().getSerdeInfo().getSerializationLib();
        TableFormat known = TableFormat.ofSerde(serde);
        String tableFormat = known == null ? null : known.configName;
        if (literal == null || tableFormat == null) {
            String url = table.getParameters() == null ? null : table.getParameters().get("avro.schema.url");
            throw new ConnectException("Table " + qualified + " exists but is not a table the connector made: it "
                    + "has no " + AVRO_SCHEMA_LITERAL + " or is not Avro, Parquet or ORC (SerDe " + serde
                    + (url != null ? ", schema in avro.schema.url " + url : "") + "). The connector keeps a table's "
                    + "schema in " + AVRO_SCHEMA_LITERAL + ": drop the table, or route the topic to another table.");
        }
        if (!tableFormat.equals(format)) {
            throw new ConnectException("Table " + qualified + " holds " + tableFormat + " files, and the connector "
                    + "is set to write " + format + " files to it: a table's format is fixed when it is created. "
                    + "Set " + TablesConfig.FORMAT + "=" + tableFormat + " (for this table only: table."
                    + table.getTableName() + "." + TablesConfig.FORMAT + "=" + tableFormat + "), or route the "
                    + "records to another table.");
        }
        List<String> tableKeys = table.getPartitionKeys().stream().map(FieldSchema::getName).toList();
        if (!tableKeys.equals(spec.names())) {
            throw new ConnectException("Table " + qualified + " is partitioned by " + tableKeys
                    + " but the connector's partitioner gives " + spec.names() + ". Make them match (partitioner, "
                    + "partition.fields, partition.time.pattern), or route the records to another table.");
        }
        Schema schema;
        try {
            schema = new Schema.Parser().parse(literal);
        } catch (RuntimeException e) {
            throw new ConnectException("Table " + qualified + " has an " + AVRO_SCHEMA_LITERAL + " that is not a "
                    + "valid Avro schema: " + e.getMessage(), e);
        }
        if (known == TableFormat.ORC) {
            checkColumnOrder(qualified, table, schema);
        }
        return schema;
    }

    /**
     * An ORC table's columns must be its schema's fields, in order: Hive before 4 and Trino read ORC files by
     * position, and the connector writes every file in the schema's order, so a table whose columns were changed by
     * hand (reordered, added) would have its readers read the wrong columns.
     */
    private static void checkColumnOrder(String qualified, Table table, Schema schema) {
        List<String> columns = columnNames(table.getSd());
        List<String> fields = schema.getFields().stream()
                .map(field -> field.name().toLowerCase(java.util.Locale.ROOT)).toList();
        if (!columns.equals(fields)) {
            throw new ConnectException("Table " + qualified + " has the columns " + columns + ", not " + fields
                    + " as its " + AVRO_SCHEMA_LITERAL + " says: ORC files are read by position (Hive before 4, "
                    + "Trino), and the connector writes them in the order of " + AVRO_SCHEMA_LITERAL + ", so a "
                    + "reader would read the wrong columns. Change the table back (ALTER TABLE ... REPLACE COLUMNS, "
                    + "in that order), or route the records to another table.");
        }
    }

    private static String avroLiteral(Table table) {
        String literal = table.getParameters() == null ? null : table.getParameters().get(AVRO_SCHEMA_LITERAL);
        if (literal == null && table.getSd().getSerdeInfo() != null
                && table.getSd().getSerdeInfo().getParameters() != null) {
            literal = table.getSd().getSerdeInfo().getParameters().get(AVRO_SCHEMA_LITERAL);
        }
        return literal;
    }

    private HiveTable wrap(Table table, Schema tableSchema) {
        List<String> names = table.getPartitionKeys().stream().map(FieldSchema::getName).toList();
        List<String> types = table.getPartitionKeys().stream().map(FieldSchema::getType).toList();
        return new HiveTable(table.getTableName(), table.getSd().getLocation(), tableSchema,
                new PartitionSpec(names, types), table.getSd(),
                optionsFor.apply(table.getTableName()).compaction().enabled());
    }

    /**
     * Null if the metastore answers the fields of this task's Avro tables (Trino asks for them), or none was checked
     * yet; else its answer ({@link AvroFieldsCheck}).
     */
    public String avroFieldsRefusal() {
        return avroFields.refusal();
    }

    /** The metastore definition of one of the table's partitions, located where Hive would put it. */
    public Partition partition(HiveTable table, PartitionValues values) {
        return registrar.partition(table, values);
    }
}
