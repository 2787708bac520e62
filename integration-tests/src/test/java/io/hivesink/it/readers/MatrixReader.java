package io.hivesink.it.readers;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.hivesink.stack.hive.HiveSql;
import io.hivesink.stack.hive.HiveSqlException;
import io.hivesink.stack.spark.SparkSql;
import io.hivesink.stack.trino.TrinoSql;

/**
 * A query engine the {@link Battery} runs on: how it spells SQL, orders NaN, and runs statements in one session.
 *
 * @param name     its name in reports and in {@link Limitation}s, e.g. {@code hive-4.0.1}
 * @param settings statements run first in the session: the reader's predicate pushdown, where it is not on by default
 * @param unions   whether a column's checks go as one statement, a {@code UNION ALL} of one scan per predicate (each
 *                 still pushed down on its own), rather than one statement each: cheaper where a statement costs a
 *                 job or a process
 * @param runner   runs the statements in one session
 */
record MatrixReader(String name, Dialect dialect, Oracle.NanOrder nanOrder, List<String> settings, boolean unions,
        Runner runner) {

    /** Runs statements in one session of the engine. */
    interface Runner {
        List<Result> run(List<String> statements) throws Exception;
    }

    /** One statement's rows (values as text, SQL NULL as null), or the reader's error if it refused the statement. */
    record Result(List<List<String>> rows, String error) {
    }

    List<Result> run(List<String> statements) throws Exception {
        return runner.run(statements);
    }

    /** HiveServer2 in a child JVM, with {@code hive.optimize.index.filter} on; NaN is greater than any number. */
    static MatrixReader hive(String name, HiveSql hive) {
        return new MatrixReader(name, Dialect.HIVE, Oracle.NanOrder.GREATEST,
                List.of("set hive.optimize.index.filter=true"), false,
                statements -> oneByOne(statements, hive::query, HiveSqlException.class));
    }

    /** Spark SQL with its defaults (Parquet and ORC filter pushdown on), one process for all statements. */
    static MatrixReader spark(String name, SparkSql spark) {
        return new MatrixReader(name, Dialect.SPARK, Oracle.NanOrder.GREATEST, List.of(), true,
                statements -> spark.query(statements.toArray(String[]::new)).stream()
                        .map(rows -> new Result(rows, null)).toList());
    }

    /** Trino with its defaults, over its client protocol. */
    static MatrixReader trino(String name, TrinoSql trino) {
        return new MatrixReader(name, Dialect.TRINO, Oracle.NanOrder.IEEE, List.of(), true,
                statements -> oneByOne(statements, trino::query, TrinoSql.TrinoException.class));
    }

    /** Each statement on its own; one the engine refuses gives its error, and the next ones still run. */
    private static List<Result> oneByOne(List<String> statements, Function<String, List<List<String>>> query,
            Class<? extends RuntimeException> refusal) {
        List<Result> results = new ArrayList<>();
        for (String statement : statements) {
            try {
                results.add(new Result(query.apply(statement), null));
            } catch (RuntimeException e) {
                if (!refusal.isInstance(e)) {
                    throw e;
                }
                results.add(new Result(List.of(), e.getMessage()));
            }
        }
        return results;
    }
}
