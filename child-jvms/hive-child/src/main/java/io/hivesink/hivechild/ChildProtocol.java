package io.hivesink.hivechild;

/**
 * The line protocol between a Hive child JVM and its parent, shared by both sides (this class needs nothing of
 * Hive, so the parent loads it from this module's jar). Protocol lines start with {@link #PREFIX}; fields are
 * tab-separated, with backslash, tab, line feed and carriage return escaped as {@code \\ \t \n \r} and SQL NULL
 * written as {@code \N}.
 */
public final class ChildProtocol {

    public static final String PREFIX = "@@hive-child@@ ";
    public static final String NULL = "\\N";

    private ChildProtocol() {
    }

    public static String escape(String value) {
        if (value == null) {
            return NULL;
        }
        StringBuilder out = new StringBuilder(value.length() + 8);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    public static String unescape(String field) {
        if (NULL.equals(field)) {
            return null;
        }
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 1 < field.length()) {
                char n = field.charAt(++i);
                switch (n) {
                    case 't' -> out.append('\t');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    default -> out.append(n);
                }
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
