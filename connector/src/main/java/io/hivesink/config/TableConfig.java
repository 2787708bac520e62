package io.hivesink.config;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;

/**
 * One table's configuration: for each key a table may set for itself ({@code table.<name>.<key>}, see
 * {@link TableOverrides}) the table's own value, or the connector's; and where the connector creates the table.
 *
 * @param partitioners    the table's partitioners, in column order
 * @param tableProperties the properties a table the connector creates gets
 * @param schemaEvolution whether compatible schema changes evolve the table
 * @param format          the table's file format, lower case: {@code avro}, {@code parquet} or {@code orc}
 * @param codecName       the Avro codec of the table's files, lower case
 * @param parquetCodec    the Parquet codec of the table's files, lower case
 * @param orcCodec        the ORC codec of the table's files, lower case
 * @param codecLevel      the codec's level, or -1 for its default
 * @param batchMaxRecords how many of the table's records close a batch
 * @param done            when its time partitions are done, and how they are marked ({@link DoneConfig})
 * @param compaction      whether its done partitions are compacted (and so live outside its directory), and how
 *                        ({@link CompactionConfig})
 * @param location        the directory of the table when the connector creates it ({@code table.<name>.location}),
 *                        or null for {@code <warehouse>/<database>.db/<table>}
 */
public record TableConfig(List<String> partitioners, Map<String, String> tableProperties, boolean schemaEvolution,
        String format, String codecName, int codecLevel, String parquetCodec, boolean parquetDictionary,
        String orcCodec, int batchMaxRecords, DoneConfig.Table done, CompactionConfig.Table compaction,
        String location) {

    public TableConfig {
        partitioners = List.copyOf(partitioners);
        tableProperties = Map.copyOf(tableProperties);
    }

    /** The keys a table may set for itself. */
    public static final List<String> KEYS = List.of(PartitionConfig.PARTITIONER, PartitionConfig.PARTITION_FIELDS,
            PartitionConfig.PARTITION_TIME_PATTERN, PartitionConfig.PARTITION_TIME_ZONE,
            PartitionConfig.PARTITION_TIME_FIELD, PartitionConfig.PARTITION_TIME_FIELD_UNIT,
            PartitionConfig.PARTITION_TIME_FIELD_FORMAT, TablesConfig.TABLE_PROPERTIES, TablesConfig.SCHEMA_EVOLUTION,
            TablesConfig.FORMAT, AvroConfig.AVRO_CODEC, AvroConfig.AVRO_CODEC_LEVEL, ParquetConfig.PARQUET_CODEC,
            ParquetConfig.PARQUET_DICTIONARY, OrcConfig.ORC_CODEC, BatchConfig.BATCH_MAX_RECORDS,
            DoneConfig.PARTITION_DONE_LATENESS_MS, DoneConfig.PARTITION_DONE_DELAY_MS,
            DoneConfig.PARTITION_DONE_SUCCESS_FILE, DoneConfig.PARTITION_LATE_POLICY,
            CompactionConfig.COMPACTION_ENABLED, CompactionConfig.COMPACTION_TARGET_BYTES,
            CompactionConfig.COMPACTION_MIN_FILES);

    /**
     * Reads the table's keys (and only those) from the connector's properties with the table's overrides in place.
     *
     * @param location the table's directory, or null for the default
     * @throws org.apache.kafka.common.config.ConfigException if a value is not valid, naming the key
     */
    public static TableConfig of(Map<String, String> settings, String location) {
        AbstractConfig config = HiveSinkConfig.readKeys(settings, KEYS);
        return new TableConfig(PartitionConfig.partitioners(config), TablesConfig.tableProperties(config),
                TablesConfig.schemaEvolution(config), TablesConfig.format(config), AvroConfig.codecName(config),
                config.getInt(AvroConfig.AVRO_CODEC_LEVEL), ParquetConfig.codecName(config),
                config.getBoolean(ParquetConfig.PARQUET_DICTIONARY), OrcConfig.codecName(config),
                config.getInt(BatchConfig.BATCH_MAX_RECORDS), DoneConfig.tableOf(config),
                CompactionConfig.tableOf(config), location);
    }

    /** The same, in another file format. */
    public TableConfig inFormat(String otherFormat) {
        return new TableConfig(partitioners, tableProperties, schemaEvolution, otherFormat, codecName, codecLevel,
                parquetCodec, parquetDictionary, orcCodec, batchMaxRecords, done, compaction, location);
    }

    /**
     * The same as a table of the connector's own (the ledger, the done table): Avro, and its schema evolved to the
     * connector's whatever {@code schema.evolution} says of the landed tables, so that an upgrade that adds a column to
     * it does not stop the tasks. Never compacted.
     */
    public TableConfig asConnectorsOwn() {
        return new TableConfig(partitioners, tableProperties, true, TablesConfig.FORMAT_AVRO, codecName, codecLevel,
                parquetCodec, parquetDictionary, orcCodec, batchMaxRecords, done,
                new CompactionConfig.Table(false, compaction.targetBytes(), compaction.minFiles()), location);
    }

    /** The same, with the table's directory at {@code qualified} (a fully qualified URI). */
    public TableConfig locatedAt(String qualified) {
        return new TableConfig(partitioners, tableProperties, schemaEvolution, format, codecName, codecLevel,
                parquetCodec, parquetDictionary, orcCodec, batchMaxRecords, done, compaction, qualified);
    }
}
