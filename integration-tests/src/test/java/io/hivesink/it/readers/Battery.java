package io.hivesink.it.readers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * What every reader is asked, of every format's table: a full scan compared row by row ({@link FullScan}), counts,
 * and for every column {@code =}, {@code <>}, {@code <}, {@code >} with each of its literals, {@code IS NULL} and
 * {@code IS NOT NULL}, each in its own scan so that the reader pushes that one predicate down (on the Avro table, only
 * of the float columns: see {@link #AVRO_PREDICATES}); and the README's ledger queries ({@link LedgerQueries}). The
 * answers come from
 * {@link Oracle}; each difference is returned under a check name a {@link Limitation} can explain.
 */
final class Battery {

    /**
     * The columns whose predicates run on the Avro table too: an Avro file has no statistics for a reader to push a
     * predicate into, so on it predicates test only the engine's own comparisons, the same on every format but for
     * -0.0, which only Avro files keep.
     */
    private static final java.util.Set<String> AVRO_PREDICATES = java.util.Set.of("f32", "f64");

    /** One predicate and the ids it must return. */
    private record Check(String name, String predicate, List<Long> expected) {
    }

    private Battery() {
    }

    /**
     * Runs the battery on each landing's table of each format ({@code <database>.matrix_<format>}), all in one
     * session of the reader; returns every difference of each landing, keyed {@code <format>/<check>}.
     */
    static Map<Landing, Map<String, String>> run(MatrixReader reader, List<Landing> landings, List<String> formats)
            throws Exception {
        List<String> statements = new ArrayList<>(reader.settings());
        List<Planned> planned = new ArrayList<>();
        for (Landing landing : landings) {
            planned.add(plan(reader, landing, formats, statements));
        }
        List<MatrixReader.Result> results = reader.run(statements);
        Map<Landing, Map<String, String>> differences = new LinkedHashMap<>();
        for (Planned one : planned) {
            differences.put(one.landing(), one.compare(reader, formats, results));
        }
        return differences;
    }

    /** One landing's statements: where its tables' statements start, and where its ledger queries do. */
    private record Planned(Landing landing, int first, Map<String, List<List<Check>>> groupsByFormat, int ledger,
            int end) {

        Map<String, String> compare(MatrixReader reader, List<String> formats, List<MatrixReader.Result> results) {
            Map<String, String> differences = new TreeMap<>();
            LedgerQueries.compare(results.subList(ledger, end), formats, landing.connector(), differences);
            int next = first;
            for (String format : formats) {
                List<List<Check>> groups = groupsByFormat.get(format);
                MatrixReader.Result scan = results.get(next++);
                if (scan.error() != null) { // the reader cannot read the table at all: one difference, not hundreds
                    differences.put(format + "/read", scan.error());
                    next += 1 + groups.size();
                    continue;
                }
                FullScan.differences(scan.rows(), format).forEach((check, difference) ->
                        differences.put(format + "/" + check, difference));
                compareCounts(results.get(next++), format, differences);
                for (List<Check> checks : groups) {
                    compareChecks(reader, format, checks, results.get(next++), differences);
                }
            }
            return differences;
        }
    }

    private static Planned plan(MatrixReader reader, Landing landing, List<String> formats, List<String> statements) {
        Dialect dialect = reader.dialect();
        int first = statements.size();
        Map<String, List<List<Check>>> groupsByFormat = new TreeMap<>();
        for (String format : formats) {
            String table = landing.database() + ".matrix_" + format;
            statements.add(FullScan.statement(dialect, table));
            statements.add(counts(table));
            List<List<Check>> groups = new ArrayList<>();
            groupsByFormat.put(format, groups);
            for (MatrixColumn column : MatrixColumn.ALL) {
                if (format.equals("avro") && !AVRO_PREDICATES.contains(column.path())) {
                    continue;
                }
                List<Check> checks = checks(column, dialect, reader.nanOrder());
                if (reader.unions()) {
                    groups.add(checks);
                    statements.add(union(checks, table));
                } else {
                    for (Check check : checks) {
                        groups.add(List.of(check));
                        statements.add("select id from " + table + " where " + check.predicate());
                    }
                }
            }
        }
        int ledger = statements.size();
        statements.addAll(LedgerQueries.statements(dialect, landing, formats));
        return new Planned(landing, first, groupsByFormat, ledger, statements.size());
    }

    private static void compareChecks(MatrixReader reader, String format, List<Check> checks,
            MatrixReader.Result answer, Map<String, String> differences) {
        if (answer.error() != null) {
            differences.put(format + "/" + checks.get(0).name() + " (and the rest of its statement)", answer.error());
            return;
        }
        List<List<String>> rows = answer.rows();
        for (int i = 0; i < checks.size(); i++) {
            int tag = i;
            List<Long> read = rows.stream()
                    .filter(row -> !reader.unions() || Integer.parseInt(row.get(0)) == tag)
                    .map(row -> Long.parseLong(row.get(reader.unions() ? 1 : 0))).sorted().toList();
            if (!read.equals(checks.get(i).expected())) {
                differences.put(format + "/" + checks.get(i).name(), "expected ids " + checks.get(i).expected()
                        + ", read " + read);
            }
        }
    }

    private static List<Check> checks(MatrixColumn column, Dialect dialect, Oracle.NanOrder nan) {
        List<Integer> ids = IntStream.range(0, MatrixRows.ROWS).boxed().toList();
        List<Check> checks = new ArrayList<>();
        for (Object literal : column.literals()) {
            for (String op : column.operators()) {
                checks.add(new Check(column.path() + " " + op + " " + MatrixColumn.text(literal),
                        column.path() + " " + op + " " + dialect.literal(column, literal),
                        Oracle.matching(column, op, literal, nan, ids)));
            }
        }
        checks.add(new Check(column.path() + " is null", column.path() + " is null",
                Oracle.nulls(column, true, ids)));
        checks.add(new Check(column.path() + " is not null", column.path() + " is not null",
                Oracle.nulls(column, false, ids)));
        return checks;
    }

    private static String union(List<Check> checks, String table) {
        List<String> branches = new ArrayList<>();
        for (int i = 0; i < checks.size(); i++) {
            branches.add("select " + i + " as q, id from " + table + " where " + checks.get(i).predicate());
        }
        return String.join(" union all ", branches);
    }

    private static List<String> topLevel() {
        return MatrixColumn.ALL.stream().map(MatrixColumn::path).filter(path -> !path.contains(".")).toList();
    }

    private static String counts(String table) {
        return "select count(*), " + String.join(", ", topLevel().stream().map(c -> "count(" + c + ")").toList())
                + " from " + table;
    }

    private static void compareCounts(MatrixReader.Result answer, String format, Map<String, String> differences) {
        List<List<String>> rows = answer.rows();
        List<String> expected = new ArrayList<>(List.of(String.valueOf(MatrixRows.ROWS)));
        for (String column : topLevel()) {
            expected.add(String.valueOf(IntStream.range(0, MatrixRows.ROWS)
                    .filter(id -> MatrixRows.value(column, id) != null).count()));
        }
        List<String> read = rows.size() == 1 ? rows.get(0) : List.of(String.valueOf(answer.error()));
        List<String> labels = new ArrayList<>(List.of("*"));
        labels.addAll(topLevel());
        for (int i = 0; i < labels.size(); i++) {
            String value = i < read.size() ? read.get(i) : null;
            if (!expected.get(i).equals(value)) {
                differences.put(format + "/count(" + labels.get(i) + ")", "expected " + expected.get(i) + ", read "
                        + value);
            }
        }
    }
}
