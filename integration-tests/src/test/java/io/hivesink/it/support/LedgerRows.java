package io.hivesink.it.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.fs.FileSystem;

import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.stack.hive.MetastoreTableReader;

/** The committed batches' ledger rows of one table, read through the metastore and the files (no Hive query). */
public final class LedgerRows {

    private LedgerRows() {
    }

    /** The ledger's rows for {@code table}: none while the ledger does not exist yet. */
    public static List<Map<String, Object>> of(String metastoreUri, FileSystem fs, String database, String table) {
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
    public static List<Map<String, Object>> of(String metastoreUri, FileSystemSource fs, String database,
            String table) {
        try {
            return of(metastoreUri, fs.get(), database, table);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The ledger says each offset of the topic landed once: per Kafka partition, the stretches of the batches (rows
     * of one batch in several Hive partitions share one) follow on from 0 with no gap or overlap, and they hold
     * {@code records} in all, as the rows' counts do.
     */
    public static void assertEachOffsetOnce(List<Map<String, Object>> rows, String topic, long records) {
        Map<Integer, Map<String, long[]>> batchStretches = new TreeMap<>();
        long total = 0;
        for (Map<String, Object> row : rows) {
            total += (Long) row.get("record_count");
            for (Object offsets : (List<?>) row.get("kafka_offsets")) {
                GenericRecord o = (GenericRecord) offsets;
                assertEquals(topic, o.get("topic").toString());
                batchStretches.computeIfAbsent((Integer) o.get("kafka_partition"), p -> new HashMap<>())
                        .merge(row.get("batch_id").toString(),
                                new long[] {(Long) o.get("first_offset"), (Long) o.get("last_offset")},
                                (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
            }
        }
        assertEquals(records, total, "records in the ledger");
        long offsets = 0;
        for (Map.Entry<Integer, Map<String, long[]>> partition : batchStretches.entrySet()) {
            List<long[]> stretches = new ArrayList<>(partition.getValue().values());
            stretches.sort((a, b) -> Long.compare(a[0], b[0]));
            long next = 0;
            for (long[] stretch : stretches) {
                assertEquals(next, stretch[0], "partition " + partition.getKey() + ": no gap or overlap");
                next = stretch[1] + 1;
            }
            offsets += next;
        }
        assertEquals(records, offsets, "offsets covered, per partition from 0 to its end");
    }

    public interface FileSystemSource {
        FileSystem get() throws IOException;
    }
}
