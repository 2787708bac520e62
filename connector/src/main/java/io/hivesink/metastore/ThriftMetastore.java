package io.hivesink.metastore;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import org.apache.hadoop.hive.common.StatsSetupConst;
import org.apache.hadoop.hive.metastore.api.AddPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.AddPartitionsResult;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.CheckLockRequest;
import org.apache.hadoop.hive.metastore.api.ConfigValSecurityException;
import org.apache.hadoop.hive.metastore.api.DataOperationType;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.GetTablesRequest;
import org.apache.hadoop.hive.metastore.api.HeartbeatRequest;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchLockException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponse;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.apache.hadoop.hive.metastore.api.hive_metastoreConstants;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.transport.TTransportException;

/**
 * {@link Metastore} over the Hive metastore's Thrift API, for metastore servers 2.3, 3.1 and 4.0 alike.
 *
 * <p>Every call is one that all three serve: Hive 4 dropped {@code get_table} and {@code get_table_objects_by_name},
 * older servers never had the {@code get_database_req} family Hive 4's client calls, and {@code get_table_req},
 * {@code get_table_objects_by_name_req}, {@code add_partitions_req} and the rest below are common to all (checked
 * against each release's generated interface, and run against each in the integration tests). Names go plain, never
 * with a catalog prefix ({@code @hive#db}), which only 3.x and later parse; servers with catalogs use their default.
 * A server that answers "Invalid method name" anyway is older than supported: {@link UnsupportedMetastoreException}.
 *
 * <p>A broken connection is reopened (to the next URI, if several) and the call repeated ({@link ThriftCalls}), except
 * a lock request, which must not be sent twice; every other call here is safe to repeat.
 */
public final class ThriftMetastore implements Metastore {

    /** Every alter goes through the one call all releases serve with an environment context. */
    private static final String ALTER = "alter_table_with_environment_context";

    private final ThriftCalls calls;
    private final MetastoreSettings settings;

    private ThriftMetastore(ThriftCalls calls, MetastoreSettings settings) {
        this.calls = calls;
        this.settings = settings;
    }

    @Override
    public void observeCalls(MetastoreCallObserver observer) {
        calls.observe(observer);
    }

    /**
     * Connects to the first metastore of {@code settings.uris()} that answers, and logs which release it is.
     *
     * @throws MetastoreException if none answers (it may come up later)
     */
    public static ThriftMetastore connect(MetastoreSettings settings) {
        ThriftMetastore metastore = new ThriftMetastore(new ThriftCalls(settings), settings);
        metastore.server();
        return metastore;
    }

    /** The server of the current connection, as it identified itself. */
    public synchronized MetastoreServer server() {
        return calls.server();
    }

    @Override
    public synchronized String describe() {
        return calls.describe();
    }

    @Override
    public synchronized boolean databaseExists(String database) {
        return calls.find("get_database", database, c -> c.get_database(database)).isPresent();
    }

    @Override
    public synchronized void createDatabase(String database, String locationUri) {
        Database db = new Database();
        db.setName(database);
        db.setLocationUri(locationUri);
        db.setDescription("Created by hive-sink");
        try {
            calls.call("create_database", database, true, c -> {
                c.create_database(db);
                return null;
            });
        } catch (AlreadyExistsException e) {
            // created by another task in the meantime: what we wanted
        } catch (TException e) {
            // a concurrent create can also surface as a constraint violation of the metastore's database
            if (!databaseExists(database)) {
                throw calls.failed("create_database " + database, e);
            }
        }
    }

    @Override
    public synchronized Optional<Table> getTable(String database, String table) {
        return calls.find("get_table_req", database + "." + table,
                c -> c.get_table_req(new GetTableRequest(database, table)).getTable());
    }

    @Override
    public synchronized void createTable(Table table) {
        String name = table.getDbName() + "." + table.getTableName();
        try {
            calls.call("create_table", name, true, c -> {
                c.create_table(table);
                return null;
            });
        } catch (AlreadyExistsException e) {
            // created by another task in the meantime; the caller re-reads and validates it
        } catch (TException e) {
            if (getTable(table.getDbName(), table.getTableName()).isEmpty()) {
                throw calls.failed("create_table " + name, e);
            }
        }
    }

    @Override
    public synchronized List<String> partitionNames(String database, String table) {
        return calls.run("get_partition_names", database + "." + table,
                c -> c.get_partition_names(database, table, (short) -1));
    }

    @Override
    public synchronized List<String> partitionNamesUnder(String database, String table, List<String> leadingValues) {
        return calls.run("get_partition_names_ps", database + "." + table + " " + leadingValues,
                c -> c.get_partition_names_ps(database, table, new ArrayList<>(leadingValues), (short) -1));
    }

    @Override
    public synchronized List<Partition> addPartitions(List<Partition> partitions) {
        if (partitions.isEmpty()) {
            return List.of();
        }
        Partition first = partitions.get(0);
        AddPartitionsRequest request = new AddPartitionsRequest(first.getDbName(), first.getTableName(),
                new ArrayList<>(partitions), true);
        request.setNeedResult(true); // the partitions added: those that existed are skipped
        AddPartitionsResult result = calls.run("add_partitions_req",
                first.getDbName() + "." + first.getTableName() + " (" + partitions.size() + " partitions)",
                c -> c.add_partitions_req(request));
        return result.isSetPartitions() ? result.getPartitions() : List.of();
    }

    @Override
    public synchronized List<Partition> partitionsByNames(String database, String table, List<String> names) {
        if (names.isEmpty()) {
            return List.of();
        }
        return calls.run("get_partitions_by_names", database + "." + table + " (" + names.size() + " partitions)",
                c -> c.get_partitions_by_names(database, table, new ArrayList<>(names)));
    }

    @Override
    public synchronized Optional<String> fieldsRefusal(String database, String table) {
        try {
            calls.call("get_fields", database + "." + table, true, c -> c.get_fields(database, table));
            return Optional.empty();
        } catch (MetaException e) {
            String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            return Optional.of(message.lines().findFirst().orElse(message));
        } catch (TException e) {
            throw calls.failed("get_fields " + database + "." + table, e);
        }
    }

    @Override
    public synchronized void alterPartitions(String database, String table, List<Partition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        EnvironmentContext context = alterContext();
        calls.run("alter_partitions", database + "." + table + " (" + partitions.size() + " partitions)",
                c -> {
                    c.alter_partitions_with_environment_context(database, table, new ArrayList<>(partitions),
                            context);
                    return null;
                });
    }

    @Override
    public synchronized Optional<Partition> getPartition(String database, String table, List<String> values) {
        return calls.find("get_partition", database + "." + table + " " + values,
                c -> c.get_partition(database, table, values));
    }

    @Override
    public synchronized List<String> tableNames(String database, String pattern) {
        return calls.run("get_tables", database + " " + pattern, c -> c.get_tables(database, pattern));
    }

    @Override
    public synchronized List<Table> getTables(String database, List<String> names) {
        if (names.isEmpty()) {
            return List.of();
        }
        GetTablesRequest request = new GetTablesRequest(database);
        request.setTblNames(new ArrayList<>(names));
        return calls.run("get_table_objects_by_name_req", database + " " + names,
                c -> c.get_table_objects_by_name_req(request).getTables());
    }

    @Override
    public synchronized ConditionalAlter alterTableIf(Table table, String expectedKey, String expectedValue) {
        return conditionalAlter(table, expectedKey, expectedValue, false);
    }

    @Override
    public synchronized ConditionalAlter alterTableCascadeIf(Table table, String expectedKey, String expectedValue) {
        return conditionalAlter(table, expectedKey, expectedValue, true);
    }

    private ConditionalAlter conditionalAlter(Table table, String expectedKey, String expectedValue,
            boolean cascade) {
        EnvironmentContext context = alterContext();
        if (cascade) {
            context.putToProperties(StatsSetupConst.CASCADE, StatsSetupConst.TRUE);
        }
        context.putToProperties(hive_metastoreConstants.EXPECTED_PARAMETER_KEY, expectedKey);
        context.putToProperties(hive_metastoreConstants.EXPECTED_PARAMETER_VALUE, expectedValue);
        String name = table.getDbName() + "." + table.getTableName();
        try {
            calls.call(ALTER, name, true, alter(table, context));
            return ConditionalAlter.written();
        } catch (TException e) {
            // The metastore reports a failed check as a plain MetaException, so read back what is stored: our
            // own value means the write went through (and a retry of it was refused); another value means it was
            // not made, refused by the check or failed otherwise, which only the answer's words tell apart.
            String stored = getTable(table.getDbName(), table.getTableName())
                    .map(t -> t.getParameters().get(expectedKey))
                    .orElseThrow(() -> calls.failed(ALTER + " " + name + " (the table is gone)", e));
            if (stored.equals(table.getParameters().get(expectedKey))) {
                return ConditionalAlter.written();
            }
            if (!stored.equals(expectedValue)) {
                return ConditionalAlter.notWritten(e.getMessage() != null ? e.getMessage() : e.toString());
            }
            throw calls.failed(ALTER + " " + name, e);
        }
    }

    @Override
    public synchronized void alterTable(Table table) {
        calls.run(ALTER, table.getDbName() + "." + table.getTableName(), alter(table, alterContext()));
    }

    @Override
    public synchronized void alterTableCascade(Table table) {
        EnvironmentContext context = alterContext();
        context.putToProperties(StatsSetupConst.CASCADE, StatsSetupConst.TRUE);
        calls.run(ALTER, table.getDbName() + "." + table.getTableName() + " (cascade)", alter(table, context));
    }

    /**
     * Every alter says not to update statistics: Hive 3 would otherwise list the files of an unpartitioned table on
     * each write of a task's state.
     */
    private static EnvironmentContext alterContext() {
        EnvironmentContext context = new EnvironmentContext();
        context.putToProperties(StatsSetupConst.DO_NOT_UPDATE_STATS, StatsSetupConst.TRUE);
        return context;
    }

    private static ThriftCalls.Call<Void> alter(Table table, EnvironmentContext context) {
        return c -> {
            c.alter_table_with_environment_context(table.getDbName(), table.getTableName(), table, context);
            return null;
        };
    }

    @Override
    public synchronized TableLock requestExclusiveLock(String database, String table, String agentInfo) {
        LockComponent component = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, database);
        component.setTablename(table);
        component.setOperationType(DataOperationType.NO_TXN);
        component.setIsTransactional(false);
        LockRequest request = new LockRequest(new ArrayList<>(List.of(component)), "hive-sink", hostName());
        request.setAgentInfo(agentInfo);
        String what = database + "." + table;
        try {
            // not repeated on a broken connection: a lock granted to a request whose answer was lost would block us
            LockResponse response = calls.call("lock", what, false, c -> c.lock(request));
            return new TableLock(response.getLockid(), state(response.getState()), agentInfo, "hive-sink",
                    hostName(), 0, 0, 0);
        } catch (TException e) {
            throw calls.failed("lock " + what, e);
        }
    }

    @Override
    public synchronized Optional<String> configValue(String name) {
        try {
            String value = calls.call("get_config_value", name, true, c -> c.get_config_value(name, ""));
            return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
        } catch (ConfigValSecurityException e) {
            return Optional.empty(); // a key this release does not hand out
        } catch (TException e) {
            throw calls.failed("get_config_value " + name, e);
        }
    }

    @Override
    public synchronized TableLock.State checkLock(long lockId) {
        return state(calls.run("check_lock", "lock " + lockId,
                c -> c.check_lock(new CheckLockRequest(lockId))).getState());
    }

    @Override
    public synchronized boolean heartbeatLock(long lockId) {
        HeartbeatRequest request = new HeartbeatRequest();
        request.setLockid(lockId);
        try {
            calls.call("heartbeat", "lock " + lockId, true, c -> {
                c.heartbeat(request);
                return null;
            });
            return true;
        } catch (NoSuchLockException e) {
            return false;
        } catch (TException e) {
            throw calls.failed("heartbeat lock " + lockId, e);
        }
    }

    /** The settings, with the URI of this connection first: a second connection goes where this one went. */
    private MetastoreSettings currentUriFirst() {
        String current;
        synchronized (this) {
            current = calls.server().uri();
        }
        List<String> uris = new ArrayList<>(settings.uris());
        if (uris.remove(current)) {
            uris.add(0, current);
        }
        return settings.withUris(uris);
    }

    /** Connects a second time here, on the caller's thread (as its identity); heartbeats on a thread of their own. */
    @Override
    public LockHeartbeat keepLockAlive(long lockId, long everyMs) {
        ThriftMetastore second;
        try {
            second = connect(currentUriFirst());
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(ThriftMetastore.class).warn("Lock {} is heartbeated only as it is "
                    + "written: a second connection to heartbeat it meanwhile failed: {}", lockId, e.getMessage());
            return LockHeartbeat.NONE;
        }
        return LockHeartbeat.start(second, lockId, everyMs);
    }

    @Override
    public synchronized boolean alterTableUnderLock(long lockId, Table table, boolean cascade) {
        if (!heartbeatLock(lockId)) {
            return false;
        }
        EnvironmentContext context = alterContext();
        if (cascade) {
            context.putToProperties(StatsSetupConst.CASCADE, StatsSetupConst.TRUE);
        }
        String what = table.getDbName() + "." + table.getTableName() + " under lock " + lockId;
        try {
            calls.call(ALTER, what, false, alter(table, context));
            return true;
        } catch (TTransportException | TProtocolException e) {
            // sent, never answered: it may land (the caller holds its lock through the metastore's retries)
            throw new MetastoreAnswerLostException(calls.failed(ALTER + " " + what, e).getMessage(), e);
        } catch (TException e) {
            throw calls.failed(ALTER + " " + what, e);
        }
    }

    @Override
    public synchronized void unlock(long lockId) {
        try {
            calls.call("unlock", "lock " + lockId, true, c -> {
                c.unlock(new UnlockRequest(lockId));
                return null;
            });
        } catch (NoSuchLockException e) {
            // released already, by us before a lost answer, or broken by another client: what we wanted
        } catch (TException e) {
            throw calls.failed("unlock lock " + lockId, e);
        }
    }

    @Override
    public synchronized List<TableLock> locksOn(String database, String table) {
        ShowLocksRequest request = new ShowLocksRequest();
        // Hive stores lock names lower-cased and compares these as given
        request.setDbname(database.toLowerCase(Locale.ROOT));
        request.setTablename(table.toLowerCase(Locale.ROOT));
        ShowLocksResponse response = calls.run("show_locks", database + "." + table, c -> c.show_locks(request));
        List<TableLock> locks = new ArrayList<>();
        if (response.getLocks() != null) {
            for (ShowLocksResponseElement lock : response.getLocks()) {
                locks.add(new TableLock(lock.getLockid(), state(lock.getState()), lock.getAgentInfo(), lock.getUser(),
                        lock.getHostname(), lock.getAcquiredat(), lock.getLastheartbeat(), lock.getTxnid()));
            }
        }
        locks.sort(java.util.Comparator.comparingLong(TableLock::id));
        return locks;
    }

    private static TableLock.State state(LockState state) {
        return switch (state) {
            case ACQUIRED -> TableLock.State.ACQUIRED;
            case WAITING -> TableLock.State.WAITING;
            default -> TableLock.State.ENDED;
        };
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "unknown";
        }
    }

    @Override
    public synchronized void close() {
        calls.close();
    }
}
