package io.hivesink.commit;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What batches landed where, as their ledger rows say: per (table, Hive partition), the records and the late ones.
 * The done marker counts a partition's records from the batches whose files are in it, and a committed batch tells
 * the marking where it landed. A batch's rows are read once (its files lie
 * in many partitions) and kept a while; a batch this task commits is known from its rows as they are written.
 */
public final class LedgerCounts {

    /** Batches whose rows are kept. */
    private static final int KEPT_BATCHES = 10_000;

    /** A batch's records in one Hive partition, and how many of them were late; late is 0 if not counted. */
    public record Counts(long records, long late) {

        Counts plus(Counts other) {
            return new Counts(records + other.records, late + other.late);
        }
    }

    private final Ledger ledger;
    /** Per batch, per {@code table \0 partition}: the latest used kept. */
    private final Map<String, Map<String, Counts>> byBatch = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Map<String, Counts>> eldest) {
            return size() > KEPT_BATCHES;
        }
    };

    LedgerCounts(Ledger ledger) {
        this.ledger = ledger;
    }

    /**
     * What the batches landed in one Hive partition of a table; null if a batch has no row there.
     *
     * @param partitionPath the Hive partition, as a path under the table ({@code dt=2026-11-22/hr=05})
     * @throws UncheckedIOException if a batch's ledger file cannot be read (not there yet, the store failed): the
     *     count is to be tried again
     */
    public synchronized Counts in(FileSystem fs, String table, String partitionPath, Set<String> batchIds) {
        Counts sum = new Counts(0, 0);
        for (String batchId : batchIds) {
            Map<String, Counts> rows = rowsOf(fs, batchId);
            Counts counted = rows == null ? null : rows.get(key(table, partitionPath));
            if (counted == null) {
                return null;
            }
            sum = sum.plus(counted);
        }
        return sum;
    }

    /** Per table, the Hive partitions (as paths) where the batch landed records; none if it has no ledger rows. */
    public synchronized Map<String, Set<String>> partitionsIn(FileSystem fs, String batchId) {
        Map<String, Set<String>> landed = new HashMap<>();
        Map<String, Counts> rows = rowsOf(fs, batchId);
        if (rows != null) {
            for (String key : rows.keySet()) {
                int split = key.indexOf('\u0000');
                landed.computeIfAbsent(key.substring(0, split), t -> new TreeSet<>()).add(key.substring(split + 1));
            }
        }
        return landed;
    }

    /** The rows a commit writes for a batch: known from now on without reading them back. */
    synchronized void wrote(String batchId, Map<String, Counts> rows) {
        byBatch.put(batchId, Map.copyOf(rows));
    }

    static String key(String table, String partitionPath) {
        return table + "\u0000" + partitionPath;
    }

    /**
     * The batch's rows, or null if it has none: its ledger file is not there and the batch is not marked (a file
     * named like a batch's that is not one, a batch given up, or one whose commit is under way). Not kept, so that
     * a batch whose commit was under way is counted once it is done.
     */
    private Map<String, Counts> rowsOf(FileSystem fs, String batchId) {
        Map<String, Counts> counts = byBatch.get(batchId);
        if (counts != null) {
            return counts;
        }
        counts = new HashMap<>();
        Path file = new Path(new Path(new Path(ledger.table().location()), ledger.partitionOf(batchId).path()),
                Ledger.fileName(batchId));
        try (DataFileStream<GenericRecord> rows = new DataFileStream<>(fs.open(file),
                new GenericDatumReader<>(Ledger.ROW))) {
            for (GenericRecord row : rows) {
                Object late = row.get("late_records"); // absent, or null, in rows written before it was counted
                counts.merge(key(row.get("table_name").toString(), row.get("partition_name").toString()),
                        new Counts((Long) row.get("record_count"), late == null ? 0 : (Long) late), Counts::plus);
            }
        } catch (FileNotFoundException e) {
            if (ledger.markedOffsets(batchId).isEmpty()) {
                return null;
            }
            throw new UncheckedIOException("The ledger file of batch " + batchId + ", which is marked, is not at "
                    + file + " (yet: a store slow to list it)", e);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the ledger rows of batch " + batchId + " at " + file, e);
        }
        byBatch.put(batchId, counts);
        return counts;
    }
}
