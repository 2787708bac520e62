package io.hivesink.config;

import java.util.Locale;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The Parquet files keys, for tables whose {@code format} is parquet: codec, dictionary, row group and page size.
 *
 * @param codecName     the codec, lower case
 * @param dictionary    whether columns are dictionary-encoded
 * @param rowGroupBytes encoded record bytes per row group
 * @param pageBytes     uncompressed bytes per page
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record ParquetConfig(String codecName, boolean dictionary, long rowGroupBytes, int pageBytes) {

    public static final String GROUP = "Parquet files";
    public static final String PARQUET_CODEC = "parquet.codec";
    public static final String PARQUET_DICTIONARY = "parquet.dictionary";
    public static final String PARQUET_ROW_GROUP_BYTES = "parquet.row.group.bytes";
    public static final String PARQUET_PAGE_BYTES = "parquet.page.bytes";

    static void define(ConfigDef def) {
        int order = 0;
        def.define(PARQUET_CODEC, Type.STRING, ParquetCodecs.SNAPPY,
                ConfigDef.CaseInsensitiveValidString.in(ParquetCodecs.NAMES.toArray(new String[0])),
                Importance.MEDIUM,
                "Compression codec of the Parquet files: snappy (read by every Hive, Spark and Trino), gzip "
                        + "(smaller, slower to write), zstd (smaller and fast, but Hive before 4.0 cannot read it: "
                        + "only for tables read by Hive 4, Spark or Trino), none.",
                GROUP, ++order, Width.SHORT, "Codec");
        def.define(PARQUET_DICTIONARY, Type.BOOLEAN, true, Validators.bool(), Importance.LOW,
                "Whether columns are dictionary-encoded: smaller files where values repeat. A column whose "
                        + "dictionary outgrows parquet.page.bytes falls back to plain encoding for the rest of its "
                        + "row group.",
                GROUP, ++order, Width.SHORT, "Dictionary");
        def.define(PARQUET_ROW_GROUP_BYTES, Type.LONG, 128L * 1024 * 1024,
                ConfigDef.Range.between(1024 * 1024, 1L << 31), Importance.LOW,
                "Size of a row group, counted as the records' encoded Avro bytes (about their uncompressed "
                        + "size). A file of a batch holds one row group unless its records are larger; readers "
                        + "split work by row group.",
                GROUP, ++order, Width.SHORT, "Row group size");
        def.define(PARQUET_PAGE_BYTES, Type.INT, 1024 * 1024, ConfigDef.Range.between(8 * 1024, 64 * 1024 * 1024),
                Importance.LOW,
                "Uncompressed size of a data page, the unit a reader decompresses and skips by; also the "
                        + "largest dictionary page.",
                GROUP, ++order, Width.SHORT, "Page size");
    }

    static ParquetConfig from(AbstractConfig config) {
        return new ParquetConfig(codecName(config), config.getBoolean(PARQUET_DICTIONARY),
                config.getLong(PARQUET_ROW_GROUP_BYTES), config.getInt(PARQUET_PAGE_BYTES));
    }

    static String codecName(AbstractConfig config) {
        return config.getString(PARQUET_CODEC).trim().toLowerCase(Locale.ROOT);
    }
}
