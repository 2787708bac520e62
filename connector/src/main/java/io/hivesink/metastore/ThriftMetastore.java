package io.hivesink.metastore;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.RetryingMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.DataOperationType;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.EnvironmentContext;
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
import org.apache.hadoop.hive.metastore.api.hive_metastoreConstants;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.thrift.TException;

/** {@link Metastore} over the Hive metastore's Thrift API, reconnecting and retrying as Hive's own client does. */
public final class ThriftMetastore implements Metastore {

    private final IMetaStoreClient client;
    private final String uris;

    private ThriftMetastore(IMetaStoreClient client, String uris) {
        this.client = client;
        this.uris = uris;
    }

    public static ThriftMetastore connect(MetastoreSettings settings, Configuration hadoopConf) {
        Configuration conf = MetastoreConf.newMetastoreConf();
        hadoopConf.forEach(e -> conf.set(e.getKey(), e.getValue()));
        String uris = String.join(",", settings.uris());
        MetastoreConf.setVar(conf, MetastoreConf.ConfVars.THRIFT_URIS, uris);
        MetastoreConf.setLongVar(conf, MetastoreConf.ConfVars.THRIFT_CONNECTION_RETRIES, 3);
        MetastoreConf.setBoolVar(conf, MetastoreConf.ConfVars.USE_SSL, settings.sslEnabled());
        if (settings.sslEnabled()) {
            MetastoreConf.setVar(conf, MetastoreConf.ConfVars.SSL_TRUSTSTORE_PATH, settings.truststorePath());
            MetastoreConf.setVar(conf, MetastoreConf.ConfVars.SSL_TRUSTSTORE_PASSWORD, settings.truststorePassword());
        }
        try {
            IMetaStoreClient client = RetryingMetaStoreClient.getProxy(conf, true);
            return new ThriftMetastore(client, uris);
        } catch (Exception e) {
            throw new MetastoreException("Cannot connect to the Hive metastore at " + uris + " ("
                    + rootMessage(e) + "). Check hive.metastore.uris and that the metastore is running.", e);
        }
    }

    @Override
    public synchronized boolean databaseExists(String database) {
        try {
            client.getDatabase(database);
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
            client.createDatabase(db);
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
            return Optional.of(client.getTable(database, table));
        } catch (NoSuchObjectException e) {
            return Optional.empty();
        } catch (TException e) {
            throw failed("get_table " + database + "." + table, e);
        }
    }

    @Override
    public synchronized void createTable(Table table) {
        try {
            client.createTable(table);
        } catch (AlreadyExistsException e) {
            // created by another task in the meantime; the caller re-reads and validates it
        } catch (TException e) {
            if (getTable(table.getDbName(), table.getTableName()).isEmpty()) {
                throw failed("create_table " + table.getDbName() + "." + table.getTableName(), e);
            }
        }
    }

    @Override
    public synchronized List<String> partitionNames(String database, String table) {
        try {
            return client.listPartitionNames(database, table, (short) -1);
        } catch (TException e) {
            throw failed("get_partition_names " + database + "." + table, e);
        }
    }

    @Override
    public synchronized void addPartitions(List<Partition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        try {
            // a mutable copy: the client asks the list whether it contains null, which immutable lists refuse
            client.add_partitions(new ArrayList<>(partitions), true, false);
        } catch (TException e) {
            Partition first = partitions.get(0);
            throw failed("add_partitions " + first.getDbName() + "." + first.getTableName() + " ("
                    + partitions.size() + " partitions)", e);
        }
    }

    @Override
    public synchronized Optional<Partition> getPartition(String database, String table, List<String> values) {
        try {
            return Optional.of(client.getPartition(database, table, values));
        } catch (NoSuchObjectException e) {
            return Optional.empty();
        } catch (TException e) {
            throw failed("get_partition " + database + "." + table + " " + values, e);
        }
    }

    @Override
    public synchronized List<String> tableNames(String database, String pattern) {
        try {
            return client.getTables(database, pattern);
        } catch (TException e) {
            throw failed("get_tables " + database + " " + pattern, e);
        }
    }

    @Override
    public synchronized List<Table> getTables(String database, List<String> names) {
        if (names.isEmpty()) {
            return List.of();
        }
        try {
            return client.getTableObjectsByName(database, names);
        } catch (TException e) {
            throw failed("get_table_objects_by_name " + database + " " + names, e);
        }
    }

    @Override
    public synchronized boolean alterTableIf(Table table, String expectedKey, String expectedValue) {
        EnvironmentContext context = new EnvironmentContext();
        context.putToProperties(hive_metastoreConstants.EXPECTED_PARAMETER_KEY, expectedKey);
        context.putToProperties(hive_metastoreConstants.EXPECTED_PARAMETER_VALUE, expectedValue);
        String name = table.getDbName() + "." + table.getTableName();
        try {
            client.alter_table_with_environmentContext(table.getDbName(), table.getTableName(), table, context);
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
            client.alter_table(table.getDbName(), table.getTableName(), table);
        } catch (TException e) {
            throw failed("alter_table " + table.getDbName() + "." + table.getTableName(), e);
        }
    }

    @Override
    public synchronized void alterTableCascade(Table table) {
        try {
            client.alter_table(table.getDbName(), table.getTableName(), table, true);
        } catch (TException e) {
            throw failed("alter_table (cascade) " + table.getDbName() + "." + table.getTableName(), e);
        }
    }

    @Override
    public synchronized long lockExclusive(String database, String table, long timeoutMs) {
        LockComponent component = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, database);
        component.setTablename(table);
        component.setOperationType(DataOperationType.NO_TXN);
        component.setIsTransactional(false);
        LockRequest request = new LockRequest(new ArrayList<>(List.of(component)), "hive-sink", hostName());
        String what = "lock " + database + "." + table;
        try {
            LockResponse response = client.lock(request);
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (response.getState() == LockState.WAITING && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
                response = client.checkLock(response.getLockid());
            }
            if (response.getState() != LockState.ACQUIRED) {
                if (response.getState() == LockState.WAITING) {
                    client.unlock(response.getLockid());
                }
                throw new MetastoreException("Metastore call " + what + " on " + uris + " ended " + response.getState()
                        + " after " + timeoutMs + " ms", null);
            }
            return response.getLockid();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MetastoreException("Interrupted waiting for " + what, e);
        } catch (TException e) {
            throw failed(what, e);
        }
    }

    @Override
    public synchronized void unlock(long lockId) {
        try {
            client.unlock(lockId);
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
        client.close();
    }

    /** Rejections of what we sent are permanent; anything else (connection, server, database) may pass. */
    private RuntimeException failed(String call, Exception e) {
        String message = "Metastore call " + call + " on " + uris + " failed: " + rootMessage(e);
        if (e instanceof InvalidObjectException || e instanceof InvalidOperationException) {
            return new ConnectException(message, e);
        }
        return new MetastoreException(message, e);
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

}
