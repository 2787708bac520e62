package io.hivesink.table;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name of a data file the connector lands: {@code part-<batch id>-<number>.<extension>}, such as
 * {@code part-3f2a...-00001.parquet}. The batch id in the name is what ties a file to its ledger row: the README's
 * "complete batches only" query joins on it, and the done marker counts a partition's records by it. Built and read
 * here only, so that the two never drift apart.
 */
public final class DataFileName {

    /** A batch id is its task run's instance and a sequence number: {@code <instance>-<n>}. */
    private static final Pattern NAME = Pattern.compile("part-(.+-\\d+)-(\\d{5})(\\..*)?");

    private DataFileName() {
    }

    /**
     * The name of a batch's {@code number}th file in a table (from 1).
     *
     * @param extension the format's, with its dot ({@code .parquet}), or empty
     */
    public static String of(String batchId, int number, String extension) {
        return "part-" + batchId + "-" + String.format("%05d", number) + extension;
    }

    /** The batch id a file name carries, or empty if it is not the name of one of the connector's data files. */
    public static Optional<String> batchOf(String fileName) {
        Matcher name = NAME.matcher(fileName);
        return name.matches() ? Optional.of(name.group(1)) : Optional.empty();
    }
}
