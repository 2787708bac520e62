package io.hivesink.done;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.hive.metastore.api.Partition;

import io.hivesink.commit.LedgerCounts;

/**
 * What the Hive partitions of one time partition hold, as a mark or a note finds them: their data files and bytes,
 * and their records and late records as the ledger rows of their batches say (unknown, null, once a file is not of
 * a batch in the ledger). Per Hive partition too, for its parameters.
 */
final class PartitionTally {

    private final Set<String> paths = new TreeSet<>();
    private final Map<String, Map<String, String>> parameters = new HashMap<>();
    private int files;
    private long bytes;
    private Long records = 0L;
    private Long late = 0L;

    void file(FileStatus file) {
        paths.add(file.getPath().toString());
        bytes += file.getLen();
        files++;
    }

    /** A Hive partition's files are counted: it holds {@code files} of them and, if known, these records. */
    void partition(Partition partition, int partitionFiles, LedgerCounts.Counts counted) {
        Map<String, String> params = new HashMap<>();
        params.put(PartitionMarker.DONE_FILES, Integer.toString(partitionFiles));
        if (counted != null) {
            params.put(PartitionMarker.DONE_RECORDS, Long.toString(counted.records()));
            params.put(PartitionMarker.LATE_RECORDS, Long.toString(counted.late()));
        }
        parameters.put(partition.getSd().getLocation(), params);
        records = records == null || counted == null ? null : records + counted.records();
        late = late == null || counted == null ? null : late + counted.late();
    }

    /** The figures a Hive partition's parameters hold (records only if known). */
    Map<String, String> parametersOf(Partition partition) {
        return parameters.getOrDefault(partition.getSd().getLocation(), Map.of());
    }

    /** Every data file, by its path: what a second count compares. */
    Set<String> paths() {
        return paths;
    }

    int files() {
        return files;
    }

    long bytes() {
        return bytes;
    }

    Long records() {
        return records;
    }

    Long late() {
        return late;
    }
}
