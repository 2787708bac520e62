package io.hivesink.bench.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.common.TopicPartition;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.hivesink.commit.Ledger;
import io.hivesink.metastore.ThriftMetastore;

/**
 * Tells when the metastore holds every record of a run: where the clock of a run stops. Each sink is asked what it
 * itself commits, through the metastore, never through Kafka's consumer offsets (which trail the commit by the
 * worker's offset flush interval).
 */
interface CommitWatch {

    /** Whether everything is committed; called every {@code --watch-ms} (100 ms by default) until it is. */
    boolean complete() throws IOException;

    /** The data files the run committed, counted once it completed. */
    long files() throws IOException;

    /** hive-sink: the ledger's batch markers, each carrying its batch's end offsets, reach every partition's end. */
    final class HiveSinkLedger implements CommitWatch {
        private final ThriftMetastore metastore;
        private final FileSystem fs;
        private final String database;
        private final String table;
        private final Map<TopicPartition, Long> ends;
        private final String extension;
        private final Map<TopicPartition, Long> committed = new HashMap<>();
        private final Set<String> seen = new HashSet<>();
        private boolean ledgerExists;

        /** @param extension the data files' name ending: {@code .avro}, {@code .parquet} */
        HiveSinkLedger(ThriftMetastore metastore, FileSystem fs, String database, String table,
                Map<TopicPartition, Long> ends, String extension) {
            this.metastore = metastore;
            this.fs = fs;
            this.database = database;
            this.table = table;
            this.ends = ends;
            this.extension = extension;
        }

        @Override
        public boolean complete() {
            if (!ledgerExists) {
                ledgerExists = metastore.getTable(database, "hive_sink_ledger").isPresent();
                if (!ledgerExists) {
                    return false;
                }
            }
            for (String name : metastore.partitionNames(database, "hive_sink_ledger")) {
                if (seen.add(name)) {
                    String batchId = name.substring(name.indexOf('=') + 1);
                    metastore.getPartition(database, "hive_sink_ledger", List.of(batchId)).ifPresent(marker ->
                            Ledger.markedOffsetsOf(marker).forEach((tp, next) -> committed.merge(tp, next, Math::max)));
                }
            }
            return ends.entrySet().stream().allMatch(e -> committed.getOrDefault(e.getKey(), 0L) >= e.getValue());
        }

        /** The batches committed: one ledger partition each. */
        int batches() {
            return seen.size();
        }

        @Override
        public long files() throws IOException {
            Optional<Table> landed = metastore.getTable(database, table);
            return landed.isEmpty() ? 0 : countFiles(fs, new Path(landed.get().getSd().getLocation()), extension);
        }
    }

    /**
     * Iceberg: the table's current snapshot, whose metadata file the metastore points at, holds every record (its
     * summary's {@code total-records}).
     */
    final class IcebergSnapshot implements CommitWatch {
        private static final ObjectMapper JSON = new ObjectMapper();
        private final ThriftMetastore metastore;
        private final FileSystem fs;
        private final String database;
        private final String table;
        private final long records;
        private String lastLocation;
        private JsonNode summary;
        private int snapshots;

        IcebergSnapshot(ThriftMetastore metastore, FileSystem fs, String database, String table, long records) {
            this.metastore = metastore;
            this.fs = fs;
            this.database = database;
            this.table = table;
            this.records = records;
        }

        @Override
        public boolean complete() throws IOException {
            Optional<Table> current = metastore.getTable(database, table);
            if (current.isEmpty()) {
                return false;
            }
            String location = current.get().getParameters().get("metadata_location");
            if (location == null || location.equals(lastLocation)) {
                return summary != null && summary.path("total-records").asLong() >= records;
            }
            lastLocation = location;
            JsonNode metadata;
            try (InputStream in = fs.open(new Path(location))) {
                metadata = JSON.readTree(in);
            }
            snapshots = metadata.path("snapshots").size();
            long snapshotId = metadata.path("current-snapshot-id").asLong(-1);
            for (JsonNode snapshot : metadata.path("snapshots")) {
                if (snapshot.path("snapshot-id").asLong() == snapshotId) {
                    summary = snapshot.path("summary");
                }
            }
            return summary != null && summary.path("total-records").asLong() >= records;
        }

        /** The commits (snapshots) it took, as the last metadata file read lists them. */
        long snapshots() {
            return snapshots;
        }

        @Override
        public long files() {
            return summary == null ? 0 : summary.path("total-data-files").asLong();
        }
    }

    static long countFiles(FileSystem fs, Path dir, String suffix) throws IOException {
        if (!fs.exists(dir)) {
            return 0;
        }
        long files = 0;
        var listing = fs.listFiles(dir, true);
        while (listing.hasNext()) {
            if (listing.next().getPath().getName().endsWith(suffix)) {
                files++;
            }
        }
        return files;
    }
}
