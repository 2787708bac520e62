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

    /** Reads back what {@link #escapePathName} wrote: each %XX its character. */
    public static String unescapePathName(String name) {
        if (name.indexOf('%') < 0) {
            return name;
        }
        StringBuilder out = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '%' && i + 2 < name.length() && isHex(name.charAt(i + 1)) && isHex(name.charAt(i + 2))) {
                out.append((char) Integer.parseInt(name.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isHex(char c) {
        return Character.digit(c, 16) >= 0;
    }

    /**
     * The values of an escaped partition name such as {@code dt=2026-11-22/hr=05} (a metastore's partition name, or a
     * partition's relative directory), in order, unescaped.
     */
    public static java.util.List<String> valuesOf(String partitionName) {
        java.util.List<String> values = new java.util.ArrayList<>();
        for (String segment : partitionName.split("/", -1)) {
            values.add(unescapePathName(segment.substring(segment.indexOf('=') + 1)));
        }
        return values;
    }

    /**
     * Whether two locations are the same directory, compared by their paths: a location the metastore qualified
     * ({@code hdfs://nn:8020/w/t}) and one it did not ({@code /w/t}) are.
     */
    public static boolean sameDir(org.apache.hadoop.fs.Path a, org.apache.hadoop.fs.Path b) {
        return a != null && b != null && a.toUri().getPath().equals(b.toUri().getPath());
    }

    /** The same, of locations as the metastore stores them; a null is no directory. */
    public static boolean sameDir(String a, String b) {
        return a != null && b != null && sameDir(new org.apache.hadoop.fs.Path(a), new org.apache.hadoop.fs.Path(b));
    }
}
