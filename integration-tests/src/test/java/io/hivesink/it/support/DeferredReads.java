package io.hivesink.it.support;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads gathered over a test class and made in one run of the query engine after its last test, each checked on its
 * own results. A Spark run starts a JVM and its Hive client (about 40 s), which a class paying it per check could not
 * afford within the suite's time.
 */
public final class DeferredReads {

    /** A query engine: per statement, its rows. */
    @FunctionalInterface
    public interface Engine {
        List<List<List<String>>> query(String... statements) throws Exception;
    }

    /** A check of the results of the statements it was added with, in their order. */
    @FunctionalInterface
    public interface Check {
        void check(List<List<List<String>>> results) throws Exception;
    }

    private record Pending(int from, int to, Check check) {
    }

    private final List<String> statements = new ArrayList<>();
    private final List<Pending> pending = new ArrayList<>();

    /** Keeps {@code reads} for {@link #run}, with the check of their results. */
    public synchronized void add(List<String> reads, Check check) {
        pending.add(new Pending(statements.size(), statements.size() + reads.size(), check));
        statements.addAll(reads);
    }

    /** Runs every statement kept in one query, then each check; the number of checks run. */
    public synchronized int run(Engine engine) throws Exception {
        if (pending.isEmpty()) {
            return 0;
        }
        List<List<List<String>>> results = engine.query(statements.toArray(String[]::new));
        for (Pending read : pending) {
            read.check().check(results.subList(read.from(), read.to()));
        }
        int checked = pending.size();
        pending.clear();
        statements.clear();
        return checked;
    }
}
