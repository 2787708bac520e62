package io.hivesink.table;

/** Partition directory names as Hive writes them, so Hive, Spark and Trino find the same partitions. */
public final class HivePaths {

    /** The directory value Hive uses for a null partition value. */
    public static final String DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__";

    private static final boolean[] ESCAPED = new boolean[128];

    static {
        for (char c = 0; c < ' '; c++) {
            ESCAPED[c] = true;
        }
        for (char c : "\"#%'*/:=?\\\u007F{[]^".toCharArray()) {
            ESCAPED[c] = true;
        }
    }

    private HivePaths() {
    }

    /** Escapes the characters Hive escapes in partition directory names, as %XX. */
    public static String escapePathName(String value) {
        if (value == null || value.isEmpty()) {
            return DEFAULT_PARTITION_NAME;
        }
        StringBuilder out = null;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < ESCAPED.length && ESCAPED[c]) {
                if (out == null) {
                    out = new StringBuilder(value.length() + 8).append(value, 0, i);
                }
                out.append('%').append(String.format("%02X", (int) c));
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? value : out.toString();
    }
}
