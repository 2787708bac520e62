package io.hivesink.metastore;

import java.util.Locale;
import java.util.Map;

import org.apache.avro.Schema;

import io.hivesink.config.TableConfig;
import io.hivesink.config.TablesConfig;
import io.hivesink.orc.OrcSchemas;
import io.hivesink.parquet.ParquetSchemas;

/**
 * A file format as the metastore declares it: the SerDe and input and output formats Hive reads a table's files
 * with, and what the format allows of a table's schema.
 */
enum TableFormat {
    AVRO(TablesConfig.FORMAT_AVRO, "org.apache.hadoop.hive.serde2.avro.AvroSerDe",
            "org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat",
            "org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat"),
    PARQUET(TablesConfig.FORMAT_PARQUET, "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
            "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
            "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"),
    ORC(TablesConfig.FORMAT_ORC, "org.apache.hadoop.hive.ql.io.orc.OrcSerde",
            "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat", "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat");

    final String configName;
    final String serde;
    final String inputFormat;
    final String outputFormat;

    TableFormat(String configName, String serde, String inputFormat, String outputFormat) {
        this.configName = configName;
        this.serde = serde;
        this.inputFormat = inputFormat;
        this.outputFormat = outputFormat;
    }

    /** The format of a {@code format} setting. */
    static TableFormat named(String configName) {
        for (TableFormat format : values()) {
            if (format.configName.equals(configName)) {
                return format;
            }
        }
        throw new IllegalArgumentException("No file format " + configName);
    }

    /** The format of a table of this SerDe, or null if the connector does not write it. */
    static TableFormat ofSerde(String serde) {
        for (TableFormat format : values()) {
            if (format.serde.equals(serde)) {
                return format;
            }
        }
        return null;
    }

    /** Why a file of this format cannot hold the columns, or null if it can. */
    String unwritable(Schema columns) {
        return switch (this) {
            case AVRO -> null;
            case PARQUET -> ParquetSchemas.unwritable(columns);
            case ORC -> OrcSchemas.unwritable(columns);
        };
    }

    /**
     * Whether a column's number may widen (int to bigint...): only where each file carries the schema it was written
     * with (Avro). A columnar file keeps its column's narrow type, which Spark does not convert.
     */
    boolean widens() {
        return this == AVRO;
    }

    /** The table properties with which what Hive itself writes to the table (INSERT) is compressed as ours. */
    void putCompression(Map<String, String> params, TableConfig options) {
        switch (this) {
            case PARQUET -> params.putIfAbsent("parquet.compression", options.parquetCodec().equals("none")
                    ? "UNCOMPRESSED" : options.parquetCodec().toUpperCase(Locale.ROOT));
            case ORC -> params.putIfAbsent("orc.compress", options.orcCodec().toUpperCase(Locale.ROOT));
            default -> {
            }
        }
    }
}
