package io.hivesink.metastore;

import java.util.List;
import java.util.Optional;

import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;

/** The metastore calls the connector makes; one implementation talks Thrift, tests may fake this seam. */
public interface Metastore extends AutoCloseable {

    boolean databaseExists(String database);

    /** Creates the database; succeeds if it was created concurrently. */
    void createDatabase(String database, String locationUri);

    Optional<Table> getTable(String database, String table);

    /** Creates the table; succeeds if a table of that name was created concurrently. */
    void createTable(Table table);

    /** Escaped partition names ({@code a=1/b=x}) of all partitions of the table. */
    List<String> partitionNames(String database, String table);

    /** Escaped partition names of the table's partitions whose leading partition values are these. */
    List<String> partitionNamesUnder(String database, String table, List<String> leadingValues);

    /**
     * Adds the partitions in one call, skipping those that already exist.
     *
     * @return the partitions this call added, as the metastore stored them
     */
    List<Partition> addPartitions(List<Partition> partitions);

    /** The partitions of one table named ({@code a=1/b=x}) that exist, as the metastore has them. */
    List<Partition> partitionsByNames(String database, String table, List<String> names);

    Optional<Partition> getPartition(String database, String table, List<String> values);

    /**
     * Why the metastore does not answer a table's fields from its storage (as Trino asks for an Avro table's), or
     * empty if it does: a standalone metastore answers "Storage schema reading not supported" unless it is given a
     * storage schema reader and Hive's SerDes.
     */
    Optional<String> fieldsRefusal(String database, String table);

    /** Replaces the definitions of existing partitions of one table, in one call (one metastore transaction). */
    void alterPartitions(String database, String table, List<Partition> partitions);

    /** Names of the database's tables that match a metastore pattern ({@code *} is a wildcard). */
    List<String> tableNames(String database, String pattern);

    /** The named tables that exist, in one call. */
    List<Table> getTables(String database, List<String> names);

    /**
     * Replaces the table's definition (parameters included) in one metastore transaction if, and only if, the
     * stored table still has {@code expectedValue} under parameter {@code expectedKey}.
     *
     * @return written; or not, the stored value differing (another writer changed the table first), with the
     *         metastore's answer, which tells its check's refusal from a failure of its own
     */
    ConditionalAlter alterTableIf(Table table, String expectedKey, String expectedValue);

    /**
     * As {@link #alterTableIf}, and the table's partitions take its new columns (Hive's ALTER TABLE ... CASCADE).
     */
    ConditionalAlter alterTableCascadeIf(Table table, String expectedKey, String expectedValue);

    /** Replaces the table's definition, parameters included, unconditionally. */
    void alterTable(Table table);

    /** Alters the table and gives its partitions the table's new columns (Hive's ALTER TABLE ... CASCADE). */
    void alterTableCascade(Table table);

    /**
     * Asks for an exclusive lock on the table, outside any transaction, through the metastore's lock API (which needs
     * its transaction tables). Does not wait: a lock that is not granted at once is returned WAITING, and stays
     * queued until {@link #unlock}ed. The request is not sent again on a broken connection (a lock granted to a
     * request whose answer was lost would be one nobody knows of).
     *
     * @param agentInfo who asks, as the metastore records and lists it (at most 128 characters)
     */
    TableLock requestExclusiveLock(String database, String table, String agentInfo);

    /** Where the lock stands now; asking about a waiting lock tells the metastore its holder is alive. */
    TableLock.State checkLock(long lockId);

    /**
     * Tells the metastore the lock's holder is alive.
     *
     * @return false if the metastore no longer has the lock: it was released, broken by another client or timed out
     */
    boolean heartbeatLock(long lockId);

    /**
     * Heartbeats the lock every {@code everyMs} from a connection of its own until the result is closed, so that a
     * call holding this connection for long (an {@code ALTER ... CASCADE} over many partitions) does not leave the
     * lock silent ({@link LockHeartbeat}).
     */
    LockHeartbeat keepLockAlive(long lockId, long everyMs);

    /**
     * Heartbeats the lock and, if it is still held, replaces the table's definition, as one step: no other call on
     * this client comes between them, and the write is not sent again on a broken connection (its answer lost, the
     * caller reads again under a new lock).
     *
     * @param cascade whether the table's partitions take its new columns (Hive's ALTER TABLE ... CASCADE)
     * @return false if the lock is no longer held (broken by another writer): nothing was written
     * @throws MetastoreAnswerLostException if the write was sent and its answer lost: it may land later
     */
    boolean alterTableUnderLock(long lockId, Table table, boolean cascade);

    /** Releases the lock, granted or waiting; a lock that no longer exists is no error. */
    void unlock(long lockId);

    /** The locks on the table, granted or waiting, oldest first. */
    List<TableLock> locksOn(String database, String table);

    /** A setting of the metastore server, as {@code get_config_value} hands it out; empty if unset or withheld. */
    Optional<String> configValue(String name);

    /** Tells {@code observer} of every call from now on (for metrics); a fake may ignore it. */
    default void observeCalls(MetastoreCallObserver observer) {}

    /** What answers, for messages: e.g. {@code Hive metastore 3.x at thrift://host:9083}. */
    String describe();

    @Override
    void close();
}
