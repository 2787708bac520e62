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
        if (reads.isEmpty()) {
            throw new IllegalArgumentException("a deferred check needs at least one statement");
        }
        pending.add(new Pending(statements.size(), statements.size() + reads.size(), check));
        statements.addAll(reads);
    }

    /**
     * Runs every statement kept in one query, then each check, all of them even when one fails: the first failure is
     * thrown with the others suppressed in it, each naming the check by its first statement.
     *
     * @return the number of checks run
     */
    public synchronized int run(Engine engine) throws Exception {
        if (pending.isEmpty()) {
            return 0;
        }
        List<List<List<String>>> results = engine.query(statements.toArray(String[]::new));
        AssertionError failed = null;
        for (Pending read : pending) {
            try {
                read.check().check(results.subList(read.from(), read.to()));
            } catch (Exception | AssertionError e) {
                AssertionError named = new AssertionError("the check of [" + statements.get(read.from()) + "]: "
                        + e.getMessage(), e);
                if (failed == null) {
                    failed = named;
                } else {
                    failed.addSuppressed(named);
                }
            }
        }
        int checked = pending.size();
        pending.clear();
        statements.clear();
        if (failed != null) {
            throw failed;
        }
        return checked;
    }
}
