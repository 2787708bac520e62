package io.hivesink.metastore;

import java.util.List;
import java.util.Optional;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.IMetaStoreClient;
import org.apache.hadoop.hive.metastore.RetryingMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.AlreadyExistsException;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
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
    public boolean databaseExists(String database) {
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
    public void createDatabase(String database, String locationUri) {
        Database db = new Database();
        db.setName(database);
        db.setLocationUri(locationUri);
        db.setDescription("Created by hive-sink");
        try {
            client.createDatabase(db);
        } catch (AlreadyExistsException e) {
            // created by another task in the meantime: what we wanted
        } catch (TException e) {
            throw failed("create_database " + database, e);
        }
    }

    @Override
    public Optional<Table> getTable(String database, String table) {
        try {
            return Optional.of(client.getTable(database, table));
        } catch (NoSuchObjectException e) {
            return Optional.empty();
        } catch (TException e) {
            throw failed("get_table " + database + "." + table, e);
        }
    }

    @Override
    public void createTable(Table table) {
        try {
            client.createTable(table);
        } catch (AlreadyExistsException e) {
            // created by another task in the meantime; the caller re-reads and validates it
        } catch (TException e) {
            throw failed("create_table " + table.getDbName() + "." + table.getTableName(), e);
        }
    }

    @Override
    public List<String> partitionNames(String database, String table) {
        try {
            return client.listPartitionNames(database, table, (short) -1);
        } catch (TException e) {
            throw failed("get_partition_names " + database + "." + table, e);
        }
    }

    @Override
    public void addPartitions(List<Partition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        try {
            client.add_partitions(partitions, true, false);
        } catch (TException e) {
            Partition first = partitions.get(0);
            throw failed("add_partitions " + first.getDbName() + "." + first.getTableName() + " ("
                    + partitions.size() + " partitions)", e);
        }
    }

    @Override
    public void close() {
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
