package io.hivesink.config;

import java.util.List;

/** The ORC codecs the connector writes. */
public final class OrcCodecs {
    public static final String SNAPPY = "snappy";
    public static final String ZLIB = "zlib";
    public static final String ZSTD = "zstd";
    public static final String NONE = "none";

    public static final List<String> NAMES = List.of(SNAPPY, ZLIB, ZSTD, NONE);

    private OrcCodecs() {
    }
}
