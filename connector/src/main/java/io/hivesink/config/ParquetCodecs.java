package io.hivesink.config;

import java.util.List;

/** The Parquet codecs the connector writes. */
public final class ParquetCodecs {
    public static final String SNAPPY = "snappy";
    public static final String ZSTD = "zstd";
    public static final String GZIP = "gzip";
    public static final String NONE = "none";

    public static final List<String> NAMES = List.of(SNAPPY, ZSTD, GZIP, NONE);

    private ParquetCodecs() {
    }
}
