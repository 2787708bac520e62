package io.hivesink.metastore;

import java.util.function.LongPredicate;

/**
 * Makes a read-then-write of a table exclusive, on a metastore that does not check compare-and-set: the change runs
 * under an exclusive metastore lock on the table.
 */
@FunctionalInterface
public interface TableGuard {

    /**
     * Runs {@code change} while holding the table's exclusive lock, whose id it is given: it writes with
     * {@link Metastore#alterTableUnderLock}, which writes nothing once the lock was broken.
     *
     * @return what the change returned: false if it found the table changed, or its lock broken, and wrote nothing
     */
    boolean underLock(String database, String table, LongPredicate change);
}
