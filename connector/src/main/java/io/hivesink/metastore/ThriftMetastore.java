package io.hivesink.metastore;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.hadoop.hive.common.StatsSetupConst;
import org.apache.hadoop.hive.metastore.api.AddPartitionsRequest;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.CheckLockRequest;
import org.apache.hadoop.hive.metastore.api.DataOperationType;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.GetTablesRequest;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.metastore.api.UnlockRequest;
import org.apache.hadoop.hive.metastore.api.hive_metastoreConstants;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>A broken connection is reopened (to the next URI, if several) and the call repeated, except a lock request,
 * which must not be sent twice; every other call here is safe to repeat.
 */
public final class ThriftMetastore implements Metastore {

    private static final Logger log = LoggerFactory.getLogger(ThriftMetastore.class);

    /** Rounds over all URIs when connecting, and tries of a call whose connection broke. */
    private static final int ATTEMPTS = 3;
    private static final long RETRY_DELAY_MS = 1_000;

    private final MetastoreSettings settings;
    private final List<URI> uris;
    private final String urisText;
    private ThriftConnection connection;
    private int nextUri;
    private MetastoreServer server;

    private ThriftMetastore(MetastoreSettings settings, List<URI> uris) {
        this.settings = settings;
        this.uris = uris;
        this.urisText = String.join(",", settings.uris());
    }

    /**
     * Connects to the first metastore of {@code settings.uris()} that answers, and logs which release it is.
     *
     * @throws MetastoreException if none answers (it may come up later)
     */
    public static ThriftMetastore connect(MetastoreSettings settings) {
        ThriftMetastore metastore = new ThriftMetastore(settings, parse(settings.uris()));
        metastore.connection();
        return metastore;
    }

    /** The server of the current connection, as it identified itself. */
    public synchronized MetastoreServer server() {
        connection();
        return server;
    }

    @Override
    public synchronized String describe() {
        return server == null ? "Hive metastore at " + urisText : server.describe();
    }

    @Override
    public synchronized boolean databaseExists(String database) {
        try {
            call("get_database", database, true, c -> c.get_database(database));
            return true;
        } catch (NoSuchObjectException e) {
            return false;
        } catch (TException e) {
            throw failed("get_database " + database, e);
        }
    }

    @Override
    public synchronized void createDatabase(String database, String locationUri) {
        Database db = new Database();
        db.setName(database);
        db.setLocationUri(locationUri);
        db.setDescription("Created by hive-sink");
        try {
            call("create_database", database, true, c -> {
                c.create_database(db);
                return null;
            });
        } catch (AlreadyExistsException e) {
            // created by another task in the meantime: what we wanted
        } catch (TException e) {
            // a concurrent create can also surface as a constraint violation of the metastore's database
            if (!databaseExists(database)) {
                throw failed("create_database " + database, e);
            }
        }
    }

    @Override
    public synchronized Optional<Table> getTable(String database, String table) {
        try {
            return Optional.of(call("get_table_req", database + "." + table, true,
                    c -> c.get_table_req(new GetTableRequest(database, table)).getTable()));
        } catch (NoSuchObjectException e) {
            return Optional.empty();
        } catch (TException e) {
            throw failed("get_table_req " + database + "." + table, e);
        }
    }

    @Override
    public synchronized void createTable(Table table) {
        String name = table.getDbName() + "." + table.getTableName();
        try {
            call("create_table", name, true, c -> {
                c.create_table(table);
                return null;
            });
        } catch (AlreadyExistsException e) {
            // created by another task in the meantime; the caller re-reads and validates it
        } catch (TException e) {
            if (getTable(table.getDbName(), table.getTableName()).isEmpty()) {
                throw failed("create_table " + name, e);
            }
        }
    }

    @Override
    public synchronized List<String> partitionNames(String database, String table) {
        try {
            return call("get_partition_names", database + "." + table, true,
                    c -> c.get_partition_names(database, table, (short) -1));
        } catch (TException e) {
            throw failed("get_partition_names " + database + "." + table, e);
        }
    }

    @Override
    public synchronized void addPartitions(List<Partition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        Partition first = partitions.get(0);
        AddPartitionsRequest request = new AddPartitionsRequest(first.getDbName(), first.getTableName(),
                new ArrayList<>(partitions), true);
        request.setNeedResult(false);
        String what = first.getDbName() + "." + first.getTableName() + " (" + partitions.size() + " partitions)";
        try {
            call("add_partitions_req", what, true, c -> c.add_partitions_req(request));
        } catch (TException e) {
            throw failed("add_partitions_req " + what, e);
        }
    }

    @Override
    public synchronized Optional<Partition> getPartition(String database, String table, List<String> values) {
        String what = database + "." + table + " " + values;
        try {
            return Optional.of(call("get_partition", what, true, c -> c.get_partition(database, table, values)));
        } catch (NoSuchObjectException e) {
            return Optional.empty();
        } catch (TException e) {
            throw failed("get_partition " + what, e);
        }
    }

    @Override
    public synchronized List<String> tableNames(String database, String pattern) {
        try {
            return call("get_tables", database + " " + pattern, true, c -> c.get_tables(database, pattern));
        } catch (TException e) {
            throw failed("get_tables " + database + " " + pattern, e);
        }
    }

    @Override
    public synchronized List<Table> getTables(String database, List<String> names) {
        if (names.isEmpty()) {
            return List.of();
        }
        GetTablesRequest request = new GetTablesRequest(database);
        request.setTblNames(new ArrayList<>(names));
        try {
            return call("get_table_objects_by_name_req", database + " " + names, true,
                    c -> c.get_table_objects_by_name_req(request).getTables());
        } catch (TException e) {
            throw failed("get_table_objects_by_name_req " + database + " " + names, e);
        }
    }

    @Override
    public synchronized boolean alterTableIf(Table table, String expectedKey, String expectedValue) {
        EnvironmentContext context = alterContext();
        context.putToProperties(hive_metastoreConstants.EXPECTED_PARAMETER_KEY, expectedKey);
        context.putToProperties(hive_metastoreConstants.EXPECTED_PARAMETER_VALUE, expectedValue);
        String name = table.getDbName() + "." + table.getTableName();
        try {
            alter(table, context);
            return true;
        } catch (TException e) {
            // The metastore reports a failed check as a plain MetaException, so read back what is stored: our
            // own value means the write went through (and a retry of it was refused), another value a conflict.
            String stored = getTable(table.getDbName(), table.getTableName())
                    .map(t -> t.getParameters().get(expectedKey))
                    .orElseThrow(() -> failed("alter_table " + name + " (the table is gone)", e));
            if (stored.equals(table.getParameters().get(expectedKey))) {
                return true;
            }
            if (!stored.equals(expectedValue)) {
                return false;
            }
            throw failed("alter_table " + name, e);
        }
    }

    @Override
    public synchronized void alterTable(Table table) {
        try {
            alter(table, alterContext());
        } catch (TException e) {
            throw failed("alter_table " + table.getDbName() + "." + table.getTableName(), e);
        }
    }

    @Override
    public synchronized void alterTableCascade(Table table) {
        EnvironmentContext context = alterContext();
        context.putToProperties(StatsSetupConst.CASCADE, StatsSetupConst.TRUE);
        try {
            alter(table, context);
        } catch (TException e) {
            throw failed("alter_table (cascade) " + table.getDbName() + "." + table.getTableName(), e);
        }
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

    private void alter(Table table, EnvironmentContext context) throws TException {
        call("alter_table_with_environment_context", table.getDbName() + "." + table.getTableName(), true, c -> {
            c.alter_table_with_environment_context(table.getDbName(), table.getTableName(), table, context);
            return null;
        });
    }

    @Override
    public synchronized long lockExclusive(String database, String table, long timeoutMs) {
        LockComponent component = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, database);
        component.setTablename(table);
        component.setOperationType(DataOperationType.NO_TXN);
        component.setIsTransactional(false);
        LockRequest request = new LockRequest(new ArrayList<>(List.of(component)), "hive-sink", hostName());
        String what = database + "." + table;
        try {
            // not repeated on a broken connection: a lock granted to a request whose answer was lost would block us
            LockResponse response = call("lock", what, false, c -> c.lock(request));
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (response.getState() == LockState.WAITING && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
                long id = response.getLockid();
                response = call("check_lock", what, true, c -> c.check_lock(new CheckLockRequest(id)));
            }
            if (response.getState() != LockState.ACQUIRED) {
                if (response.getState() == LockState.WAITING) {
                    unlock(response.getLockid());
                }
                throw new MetastoreException("Metastore call lock " + what + " on " + urisText + " ended "
                        + response.getState() + " after " + timeoutMs + " ms", null);
            }
            return response.getLockid();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MetastoreException("Interrupted waiting for lock " + what, e);
        } catch (TException e) {
            throw failed("lock " + what, e);
        }
    }

    @Override
    public synchronized void unlock(long lockId) {
        try {
            call("unlock", "lock " + lockId, true, c -> {
                c.unlock(new UnlockRequest(lockId));
                return null;
            });
        } catch (TException e) {
            throw failed("unlock " + lockId, e);
        }
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
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }

    @FunctionalInterface
    private interface Call<T> {
        T on(ThriftHiveMetastore.Client client) throws TException;
    }

    /**
     * Runs one Thrift call on the open connection (opening one if needed). A broken connection is dropped and, for a
     * call that may be repeated, reopened and the call tried again; "Invalid method name" becomes
     * {@link UnsupportedMetastoreException}. Other answers (the declared exceptions) go to the caller.
     */
    private <T> T call(String method, String what, boolean repeatable, Call<T> call) throws TException {
        for (int attempt = 1; ; attempt++) {
            ThriftConnection open = connection();
            try {
                return call.on(open.client());
            } catch (TTransportException | TProtocolException e) {
                close();
                if (!repeatable || attempt >= ATTEMPTS) {
                    throw e;
                }
                log.warn("Metastore call {} {} on {} lost its connection ({}); reconnecting", method, what,
                        open.uri(), rootMessage(e));
                pause(attempt);
            } catch (TApplicationException e) {
                if (e.getType() == TApplicationException.UNKNOWN_METHOD) {
                    throw UnsupportedMetastoreException.missingCall(server, method, what);
                }
                throw e;
            }
        }
    }

    /** The open connection, or a new one to the first URI (from the one after the last used) that answers. */
    private ThriftConnection connection() {
        if (connection != null) {
            return connection;
        }
        TException last = null;
        for (int round = 1; round <= ATTEMPTS; round++) {
            for (int i = 0; i < uris.size(); i++) {
                URI uri = uris.get(nextUri);
                nextUri = (nextUri + 1) % uris.size();
                ThriftConnection opened = null;
                try {
                    opened = ThriftConnection.open(uri, settings);
                    MetastoreServer identified = MetastoreServer.identify(uri.toString(), opened.client());
                    if (!identified.equals(server)) {
                        log.info("Connected to {}", identified.describe());
                    }
                    server = identified;
                    connection = opened;
                    return opened;
                } catch (TException e) {
                    if (opened != null) {
                        opened.close();
                    }
                    last = e;
                }
            }
            if (round < ATTEMPTS) {
                pause(round);
            }
        }
        throw new MetastoreException("Cannot connect to the Hive metastore at " + urisText + " ("
                + rootMessage(last) + "). Check hive.metastore.uris and that the metastore is running.", last);
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(RETRY_DELAY_MS * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MetastoreException("Interrupted while reconnecting to the metastore", e);
        }
    }

    private static List<URI> parse(List<String> uris) {
        List<URI> parsed = new ArrayList<>();
        for (String text : uris) {
            try {
                URI uri = new URI(text.strip());
                if (!"thrift".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
                    throw new URISyntaxException(text, "expected thrift://host:port");
                }
                parsed.add(uri);
            } catch (URISyntaxException e) {
                throw new ConnectException("Invalid Hive metastore URI '" + text + "' in hive.metastore.uris: "
                        + "expected thrift://host:port.", e);
            }
        }
        if (parsed.isEmpty()) {
            throw new ConnectException("hive.metastore.uris is empty: give at least one thrift://host:port.");
        }
        return parsed;
    }

    /** Rejections of what we sent are permanent; anything else (connection, server, database) may pass. */
    private RuntimeException failed(String call, Exception e) {
        String message = "Metastore call " + call + " on " + urisText + " failed: " + rootMessage(e);
        if (e instanceof InvalidObjectException || e instanceof InvalidOperationException) {
            return new ConnectException(message, e);
        }
        return new MetastoreException(message, e);
    }

    static String rootMessage(Throwable e) {
        if (e == null) {
            return "no URI to try";
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

}
