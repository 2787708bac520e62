package io.hivesink.metastore;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;

import io.hivesink.table.HivePaths;

/**
 * Databases, tables and partitions in memory, with the metastore's semantics for what the connector relies on:
 * add-if-not-exists and a compare-and-set alter_table. A narrow fake for unit tests; the integration tests run
 * the real metastore.
 */
public class InMemoryMetastore implements Metastore {

    public final Map<String, Table> tables = new HashMap<>();
    public final Map<String, Map<String, Partition>> partitions = new HashMap<>();
    public final List<String> databases = new ArrayList<>();
    public int addPartitionCalls;
    public boolean failNextAddPartitions;
    /** The next add_partitions to this table adds them and answers none, as a call retried after its lost answer. */
    public String loseAnswerOfNextAddPartitionsTo;
    /** While set, every add_partitions is refused with these words, as a metastore refuses what it cannot take. */
    public String refuseAddPartitions;
    /** Per table name, how many of its next look-ups fail as a metastore outage would. */
    public final Map<String, Integer> failingTableLookUps = new HashMap<>();
    /** The next conditional write (a task state's) fails as a metastore outage would, before it is made. */
    public boolean failNextConditionalWrite;
    /** The next conditional write is made, then fails as a lost answer would: its caller cannot know it landed. */
    public boolean loseAnswerOfNextConditionalWrite;
    /** Conditional writes made. */
    public int conditionalWrites;
    public boolean ignoreCompareAndSet;
    /** Conditional writes whose expectation holds that fail yet, as Hive 4's check fails without direct SQL. */
    public int failingCurrentExpectations;
    /** What the check answers when it refuses a write: Hive's words unless a test words it as another metastore. */
    public String checkRefusal = "The table has been modified. The parameter value for key 'x' is 'a'. The expected "
            + "was value was 'b'";
    /**
     * Conditional writes that are not made, whatever the expectation, answered by a failure of the metastore's own
     * (its database, say), not its check.
     */
    public int failingConditionalWrites;
    /** Runs before each conditional write, with the table as stored: another writer's turn. */
    public java.util.function.Consumer<Table> beforeConditionalWrite = stored -> { };
    /**
     * Runs as a conditional write is sent, on the writer's thread, before the metastore takes it up (outside its
     * monitor): another task may make whole calls here, from its own threads too.
     */
    public volatile Runnable beforeConditionalWriteCall = () -> { };
    public boolean locksWork = true;
    public int failingTableListings;
    public int lockCalls;
    private final java.util.TreeMap<Long, FakeLock> locks = new java.util.TreeMap<>();
    private long lastLockId;

    @Override
    public synchronized boolean databaseExists(String database) {
        return databases.contains(database);
    }

    @Override
    public synchronized void createDatabase(String database, String locationUri) {
        databases.add(database);
    }

    @Override
    public synchronized Optional<Table> getTable(String database, String table) {
        if (failingTableLookUps.getOrDefault(table, 0) > 0) {
            failingTableLookUps.merge(table, -1, Integer::sum);
            throw new MetastoreException("get_table " + database + "." + table + " failed (test outage)", null);
        }
        return Optional.ofNullable(tables.get(database + "." + table)).map(Table::new);
    }

    @Override
    public synchronized void createTable(Table table) {
        tables.putIfAbsent(table.getDbName() + "." + table.getTableName(), new Table(table));
    }

    @Override
    public synchronized List<String> partitionNames(String database, String table) {
        return new ArrayList<>(partitions.getOrDefault(database + "." + table, Map.of()).keySet());
    }

    @Override
    public synchronized List<String> partitionNamesUnder(String database, String table, List<String> leadingValues) {
        List<String> names = new ArrayList<>();
        partitions.getOrDefault(database + "." + table, Map.of()).forEach((name, partition) -> {
            if (partition.getValues().subList(0, leadingValues.size()).equals(leadingValues)) {
                names.add(name);
            }
        });
        return names;
    }

    @Override
    public synchronized List<Partition> addPartitions(List<Partition> added) {
        if (refuseAddPartitions != null) {
            throw new io.hivesink.metastore.MetastoreRefusedException(refuseAddPartitions, null);
        }
        if (failNextAddPartitions) {
            failNextAddPartitions = false;
            throw new MetastoreException("injected", null);
        }
        addPartitionCalls++;
        List<Partition> result = new java.util.ArrayList<>();
        for (Partition p : added) {
            String key = p.getDbName() + "." + p.getTableName();
            Table table = tables.get(key);
            StringBuilder name = new StringBuilder();
            for (int i = 0; i < p.getValues().size(); i++) {
                name.append(i == 0 ? "" : "/").append(table.getPartitionKeys().get(i).getName()).append('=')
                        .append(HivePaths.escapePathName(p.getValues().get(i)));
            }
            Partition stored = new Partition(p);
            stored.setCreateTime((int) (System.currentTimeMillis() / 1000));
            if (partitions.computeIfAbsent(key, k -> new LinkedHashMap<>()).putIfAbsent(name.toString(),
                    stored) == null) {
                result.add(new Partition(stored));
            }
        }
        if (!added.isEmpty() && added.get(0).getTableName().equals(loseAnswerOfNextAddPartitionsTo)) {
            loseAnswerOfNextAddPartitionsTo = null;
            return List.of();
        }
        return result;
    }

    @Override
    public synchronized List<Partition> partitionsByNames(String database, String table, List<String> names) {
        Map<String, Partition> existing = partitions.getOrDefault(database + "." + table, Map.of());
        return names.stream().filter(existing::containsKey).map(name -> new Partition(existing.get(name))).toList();
    }

    /** A fake's calls do not hold a connection: nothing to keep alive. */
    @Override
    public LockHeartbeat keepLockAlive(long lockId, long everyMs) {
        return LockHeartbeat.NONE;
    }

    /** Set to make {@link #fieldsRefusal} answer as a standalone metastore does. */
    public volatile String fieldsRefusal;

    @Override
    public Optional<String> fieldsRefusal(String database, String table) {
        return Optional.ofNullable(fieldsRefusal);
    }

    @Override
    public synchronized void alterPartitions(String database, String table, List<Partition> altered) {
        Map<String, Partition> existing = partitions.getOrDefault(database + "." + table, Map.of());
        for (Partition p : altered) {
            String name = existing.entrySet().stream().filter(e -> e.getValue().getValues().equals(p.getValues()))
                    .map(Map.Entry::getKey).findFirst().orElseThrow(() -> new MetastoreException("No partition "
                            + p.getValues() + " of " + database + "." + table, null));
            existing.put(name, new Partition(p));
        }
    }

    @Override
    public synchronized Optional<Partition> getPartition(String database, String table, List<String> values) {
        return partitions.getOrDefault(database + "." + table, Map.of()).values().stream()
                .filter(p -> p.getValues().equals(values)).findFirst().map(Partition::new);
    }

    @Override
    public synchronized List<String> tableNames(String database, String pattern) {
        if (failingTableListings > 0) {
            failingTableListings--;
            throw new MetastoreException("injected: the metastore is restarting", null);
        }
        Pattern regex = Pattern.compile(pattern.replace("*", ".*"));
        return tables.values().stream().filter(t -> t.getDbName().equals(database))
                .map(Table::getTableName).filter(n -> regex.matcher(n).matches()).sorted().toList();
    }

    @Override
    public synchronized List<Table> getTables(String database, List<String> names) {
        List<Table> found = new ArrayList<>();
        for (String name : names) {
            getTable(database, name).ifPresent(found::add);
        }
        return found;
    }

    @Override
    public ConditionalAlter alterTableIf(Table table, String expectedKey, String expectedValue) {
        beforeConditionalWriteCall.run();
        return alterTableIfLocked(table, expectedKey, expectedValue);
    }

    private synchronized ConditionalAlter alterTableIfLocked(Table table, String expectedKey, String expectedValue) {
        if (failNextConditionalWrite) {
            failNextConditionalWrite = false;
            throw new MetastoreException("injected: the metastore went away", null);
        }
        String key = table.getDbName() + "." + table.getTableName();
        beforeConditionalWrite.accept(tables.get(key));
        Table stored = tables.get(key);
        if (failingConditionalWrites > 0) {
            failingConditionalWrites--;
            String answer = "injected: Deadlock found when trying to get lock";
            // as ThriftMetastore: a failed write whose expectation holds is an error, else a write not made
            if (expectedValue.equals(stored.getParameters().get(expectedKey))) {
                throw new MetastoreException(answer, null);
            }
            return ConditionalAlter.notWritten(answer);
        }
        if (!ignoreCompareAndSet && !expectedValue.equals(stored.getParameters().get(expectedKey))) {
            return ConditionalAlter.notWritten(checkRefusal);
        }
        if (failingCurrentExpectations > 0) {
            failingCurrentExpectations--;
            throw new MetastoreException("injected: Cannot update parameter with JDO", null);
        }
        tables.put(key, new Table(table));
        conditionalWrites++;
        if (loseAnswerOfNextConditionalWrite) {
            loseAnswerOfNextConditionalWrite = false;
            throw new MetastoreException("injected: the answer was lost", null);
        }
        return ConditionalAlter.written();
    }

    /** A data table's conditional evolution: the expectation checked (unless ignored), then altered with cascade. */
    @Override
    public synchronized ConditionalAlter alterTableCascadeIf(Table table, String expectedKey, String expectedValue) {
        Table stored = tables.get(table.getDbName() + "." + table.getTableName());
        if (!ignoreCompareAndSet && !expectedValue.equals(stored.getParameters().get(expectedKey))) {
            return ConditionalAlter.notWritten(checkRefusal);
        }
        alterTableCascade(table);
        return ConditionalAlter.written();
    }

    @Override
    public synchronized void alterTable(Table table) {
        tables.put(table.getDbName() + "." + table.getTableName(), new Table(table));
    }

    @Override
    public synchronized void alterTableCascade(Table table) {
        alterTable(table);
        for (Partition partition : partitions.getOrDefault(table.getDbName() + "." + table.getTableName(), Map.of())
                .values()) {
            partition.getSd().setCols(new ArrayList<>(table.getSd().getCols()));
        }
    }

    /**
     * Hive's semantics for exclusive table locks outside transactions: granted only when no lock on the table was
     * asked for before (granted or waiting), kept until unlocked (nothing times out), heartbeats on the metastore's
     * clock, unlock of an unknown lock no error.
     */
    @Override
    public synchronized TableLock requestExclusiveLock(String database, String table, String agentInfo) {
        if (!locksWork) {
            throw new MetastoreException("lock: no transaction tables", null);
        }
        lockCalls++;
        return lock("hive-sink", database, table, agentInfo);
    }

    /** A lock another client takes, as {@code user}: a Hive query's, say. */
    public synchronized TableLock lock(String user, String database, String table, String agentInfo) {
        FakeLock lock = new FakeLock(++lastLockId, database + "." + table, agentInfo, user);
        locks.put(lock.id, lock);
        grantIfFree(lock);
        return lock.view();
    }

    @Override
    public synchronized TableLock.State checkLock(long lockId) {
        FakeLock lock = locks.get(lockId);
        if (lock == null) {
            throw new MetastoreException("NoSuchLockException: No such lock: " + lockId, null);
        }
        lock.heartbeatMs = System.currentTimeMillis();
        grantIfFree(lock);
        return lock.state;
    }

    @Override
    public synchronized boolean heartbeatLock(long lockId) {
        FakeLock lock = locks.get(lockId);
        if (lock == null) {
            return false;
        }
        lock.heartbeatMs = System.currentTimeMillis();
        return true;
    }

    @Override
    public synchronized boolean alterTableUnderLock(long lockId, Table table, boolean cascade) {
        if (!heartbeatLock(lockId)) {
            return false;
        }
        if (cascade) {
            alterTableCascade(table);
        } else {
            alterTable(table);
        }
        return true;
    }

    /** The server's settings, as get_config_value hands them out. */
    public final Map<String, String> settings = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public Optional<String> configValue(String name) {
        return Optional.ofNullable(settings.get(name));
    }

    @Override
    public synchronized void unlock(long lockId) {
        locks.remove(lockId);
    }

    @Override
    public synchronized List<TableLock> locksOn(String database, String table) {
        String key = database + "." + table;
        return locks.values().stream().filter(l -> l.table.equals(key)).map(FakeLock::view).toList();
    }

    private void grantIfFree(FakeLock lock) {
        if (lock.state == TableLock.State.WAITING
                && locks.headMap(lock.id).values().stream().noneMatch(l -> l.table.equals(lock.table))) {
            lock.state = TableLock.State.ACQUIRED;
            lock.acquiredAtMs = System.currentTimeMillis();
            lock.heartbeatMs = lock.acquiredAtMs;
        }
    }

    /** A lock as the metastore's lock table holds it. */
    private static final class FakeLock {
        final long id;
        final String table;
        final String agentInfo;
        final String user;
        TableLock.State state = TableLock.State.WAITING;
        long acquiredAtMs;
        long heartbeatMs = System.currentTimeMillis();

        FakeLock(long id, String table, String agentInfo, String user) {
            this.id = id;
            this.table = table;
            this.agentInfo = agentInfo;
            this.user = user;
        }

        TableLock view() {
            return new TableLock(id, state, agentInfo, user, "test-host", acquiredAtMs, heartbeatMs, 0);
        }
    }

    @Override
    public String describe() {
        return "in-memory metastore";
    }

    @Override
    public void close() {
    }
}
