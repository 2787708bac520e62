package io.hivesink.config;

import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The directory pattern of the time partitioner, such as {@code dt=yyyy-MM-dd/hr=HH}: one {@code column=format}
 * segment per partition column, separated by slashes, each format a {@link DateTimeFormatter} pattern.
 */
public record TimePattern(List<String> columns, List<DateTimeFormatter> formats, boolean finerThanMinutes) {

    /**
     * Reads a pattern; text without a zone is read in {@code zone}.
     *
     * @throws IllegalArgumentException saying what is wrong with the pattern
     */
    @SuppressWarnings("StringSplitter") // a trailing "/" is ignored, as it always was
    public static TimePattern parse(String pattern, ZoneId zone) {
        List<String> columns = new ArrayList<>();
        List<DateTimeFormatter> formats = new ArrayList<>();
        boolean fine = false;
        for (String segment : pattern.trim().split("/")) {
            int eq = segment.indexOf('=');
            if (eq <= 0 || eq == segment.length() - 1) {
                throw new IllegalArgumentException("Segment '" + segment + "' is not column=format, for example "
                        + "dt=yyyy-MM-dd/hr=HH.");
            }
            String column = segment.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String format = segment.substring(eq + 1).trim();
            if (!HiveSinkConfig.HIVE_IDENTIFIER.matcher(column).matches()) {
                throw new IllegalArgumentException("Column '" + column + "' is not a Hive name (letters, digits, "
                        + "underscores; not starting with a digit).");
            }
            if (columns.contains(column)) {
                throw new IllegalArgumentException("Column '" + column + "' appears twice.");
            }
            try {
                formats.add(DateTimeFormatter.ofPattern(format, Locale.ROOT).withZone(zone));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Format '" + format + "' of column " + column + " is not a "
                        + "java.time DateTimeFormatter pattern: " + e.getMessage());
            }
            columns.add(column);
            fine |= unquoted(format).matches(".*[sSnNAe].*");
        }
        return new TimePattern(List.copyOf(columns), List.copyOf(formats), fine);
    }

    private static String unquoted(String format) {
        return format.replaceAll("'[^']*'", "");
    }
}
