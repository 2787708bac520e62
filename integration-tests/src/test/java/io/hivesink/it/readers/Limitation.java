package io.hivesink.it.readers;

import java.util.List;
import java.util.regex.Pattern;

/**
 * A known way a reader answers wrong from correct files, with the upstream issue and what a user sets or avoids
 * (docs/compatibility.md lists the same). The matrix accepts a difference only where one of these explains it, and
 * prints each such difference.
 *
 * @param reader a prefix of the reader's name ({@code hive-4.0.1}, {@code spark}, ...)
 * @param format {@code avro}, {@code parquet}, {@code orc}, or {@code *}
 * @param checks a regular expression the whole check name must match ({@code f64 <> .*}, {@code scan/arr.*})
 * @param reads  a regular expression the whole difference must match ({@code expected 1000-01-01, read .*}), so
 *               that a limitation explains only the wrong answer it describes
 * @param why    the upstream issue and the way around it
 */
record Limitation(String reader, String format, String checks, String reads, String why) {

    boolean explains(String readerName, String formatAndCheck, String difference) {
        int slash = formatAndCheck.indexOf('/');
        String checkFormat = formatAndCheck.substring(0, slash);
        return readerName.startsWith(reader) && (format.equals("*") || format.equals(checkFormat))
                && Pattern.matches(checks, formatAndCheck.substring(slash + 1))
                && Pattern.compile(reads, Pattern.DOTALL).matcher(difference).matches();
    }

    /** The limitation that explains a difference, if one does. */
    static Limitation find(List<Limitation> known, String readerName, String formatAndCheck, String difference) {
        return known.stream().filter(l -> l.explains(readerName, formatAndCheck, difference)).findFirst()
                .orElse(null);
    }
}
