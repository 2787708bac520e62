package io.hivesink.config;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;

/**
 * What one table may set for itself ({@code table.<name>.<key>}, see {@link TableSettings}): the connector's value of
 * each such key, or the table's own.
 *
 * @param partitioners    the table's partitioners, in column order
 * @param tableProperties the properties a table the connector creates gets
 * @param schemaEvolution whether compatible schema changes evolve the table
 * @param codecName       the codec of the table's files, lower case
 * @param codecLevel      the codec's level, or -1 for its default
 * @param batchMaxRecords how many of the table's records close a batch
 */
public record PerTableConfig(List<String> partitioners, Map<String, String> tableProperties, boolean schemaEvolution,
        String codecName, int codecLevel, int batchMaxRecords) {

    /** The keys a table may set for itself. */
    public static final List<String> KEYS = List.of(PartitionConfig.PARTITIONER, PartitionConfig.PARTITION_FIELDS,
            PartitionConfig.PARTITION_TIME_PATTERN, PartitionConfig.PARTITION_TIME_ZONE,
            PartitionConfig.PARTITION_TIME_FIELD, PartitionConfig.PARTITION_TIME_FIELD_UNIT,
            PartitionConfig.PARTITION_TIME_FIELD_FORMAT, TablesConfig.TABLE_PROPERTIES, TablesConfig.SCHEMA_EVOLUTION,
            AvroConfig.AVRO_CODEC, AvroConfig.AVRO_CODEC_LEVEL, BatchConfig.BATCH_MAX_RECORDS);

    /**
     * Reads the table's keys (and only those) from the connector's properties with the table's overrides in place.
     *
     * @throws org.apache.kafka.common.config.ConfigException if a value is not valid, naming the key
     */
    static PerTableConfig of(Map<String, String> settings) {
        AbstractConfig config = HiveSinkConfig.readKeys(settings, KEYS);
        return new PerTableConfig(PartitionConfig.partitioners(config), TablesConfig.tableProperties(config),
                TablesConfig.schemaEvolution(config), AvroConfig.codecName(config),
                config.getInt(AvroConfig.AVRO_CODEC_LEVEL), config.getInt(BatchConfig.BATCH_MAX_RECORDS));
    }
}
