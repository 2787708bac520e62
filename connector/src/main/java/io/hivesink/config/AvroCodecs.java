package io.hivesink.config;

import java.util.List;

/** The Avro codecs the connector writes, and the compression levels each accepts. */
public final class AvroCodecs {
    public static final String NULL = "null";
    public static final String DEFLATE = "deflate";
    public static final String SNAPPY = "snappy";
    public static final String ZSTANDARD = "zstandard";
    public static final String BZIP2 = "bzip2";
    public static final String XZ = "xz";

    public static final List<String> NAMES = List.of(NULL, DEFLATE, SNAPPY, ZSTANDARD, BZIP2, XZ);

    private AvroCodecs() {
    }

    /** Why {@code level} does not fit {@code codec}, or null if it does. */
    public static String levelProblem(String codec, int level) {
        int[] range = switch (codec) {
            case DEFLATE -> new int[] {1, 9};
            case ZSTANDARD -> new int[] {1, 22};
            case XZ -> new int[] {0, 9};
            default -> null;
        };
        if (range == null) {
            return "Codec " + codec + " takes no level; leave it at -1.";
        }
        if (level < range[0] || level > range[1]) {
            return "Codec " + codec + " takes a level from " + range[0] + " to " + range[1]
                    + ", or -1 for its default.";
        }
        return null;
    }
}
