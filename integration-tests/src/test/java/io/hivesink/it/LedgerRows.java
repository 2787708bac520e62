package io.hivesink.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.fs.FileSystem;

import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.stack.hive.MetastoreTableReader;

/** The committed batches' ledger rows of one table, read through the metastore and the files (no Hive query). */
final class LedgerRows {

    private LedgerRows() {
    }

    /** The ledger's rows for {@code table}: none while the ledger does not exist yet. */
    static List<Map<String, Object>> of(String metastoreUri, FileSystem fs, String database, String table) {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (ThriftMetastore metastore = ThriftMetastore.connect(
                new MetastoreSettings(List.of(metastoreUri), false, "", ""))) {
            if (metastore.getTable(database, "hive_sink_ledger").isEmpty()) {
                return rows;
            }
            for (Map<String, Object> row : new MetastoreTableReader(metastore, fs).rows(database, "hive_sink_ledger")) {
                if (row.get("table_name").toString().equals(table)) {
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    /** As above, where reading HDFS may throw. */
    static List<Map<String, Object>> of(String metastoreUri, FileSystemSource fs, String database, String table) {
        try {
            return of(metastoreUri, fs.get(), database, table);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    interface FileSystemSource {
        FileSystem get() throws IOException;
    }
}
