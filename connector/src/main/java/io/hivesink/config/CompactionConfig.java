package io.hivesink.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The Compaction keys ({@code docs/compaction.md}): which tables have their done partitions' small files merged,
 * into files of what size, and how the tasks share that work with landing batches. A table may set the first three
 * for itself ({@code table.<name>.<key>}).
 *
 * @param retentionMs how long a compacted partition's old directory is kept for readers that listed it
 * @param holdMaxMs   how long a compaction holds a partition at most, waiting for batches on their way into it
 * @param cpuShare    the share of the task's time its compactions take at most
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record CompactionConfig(long retentionMs, long holdMaxMs, double cpuShare) {

    public static final String GROUP = "Compaction";
    public static final String COMPACTION_ENABLED = "compaction.enabled";
    public static final String COMPACTION_TARGET_BYTES = "compaction.target.bytes";
    public static final String COMPACTION_MIN_FILES = "compaction.min.files";
    public static final String COMPACTION_RETENTION_MS = "compaction.retention.ms";
    public static final String COMPACTION_HOLD_MAX_MS = "compaction.hold.max.ms";
    public static final String COMPACTION_CPU_SHARE = "compaction.cpu.share";
    /** The directory, beside a compacted table's own, that holds its partitions: this prefix, then the table. */
    public static final String PARTITIONS_DIR_PREFIX = "partitions_of_";

    /**
     * The keys a table may set for itself.
     *
     * @param enabled     whether its done partitions are compacted, and so live outside its directory
     * @param targetBytes the size of the merged files
     * @param minFiles    how many small files a partition must hold to be compacted
     */
    public record Table(boolean enabled, long targetBytes, int minFiles) {
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(COMPACTION_ENABLED, Type.BOOLEAN, false, Validators.bool(), Importance.MEDIUM,
                "Whether a table's done partitions are compacted: their files below compaction.target.bytes "
                        + "merged into files of about that size, in batch order, by the tasks, exactly once; "
                        + "readers see the old files or the merged ones, never both (docs/compaction.md). Set it "
                        + "per table: table.<name>.compaction.enabled=true. A table with it on keeps each "
                        + "partition it lands in from then on outside its own directory, under "
                        + PARTITIONS_DIR_PREFIX + "<table>/<partition path>/<generation> beside it, so that a "
                        + "compaction moves the partition to a new directory in one metastore call and Hive's MSCK "
                        + "REPAIR TABLE keeps it. Do not run Trino's sync_partition_metadata with DROP or FULL and "
                        + "case_sensitive=true on such a table: it drops the partitions that live outside. Avro "
                        + "files are merged by copying their blocks, Parquet and ORC files encoded again into full "
                        + "row groups and stripes. Being built (issue 46).",
                GROUP, ++order, Width.SHORT, "Compaction");
        def.define(COMPACTION_TARGET_BYTES, Type.LONG, 128L * 1024 * 1024, ConfigDef.Range.atLeast(1L << 20),
                Importance.MEDIUM,
                "The size of the files a compaction writes, in bytes: a partition's files below it are merged "
                        + "into ceil(their bytes / this) files of about equal size; files at or above it stay as "
                        + "they are. Match it to the block size of HDFS or to the split size your engines read.",
                GROUP, ++order, Width.MEDIUM, "Compaction target (bytes)");
        def.define(COMPACTION_MIN_FILES, Type.INT, 4, ConfigDef.Range.atLeast(2), Importance.MEDIUM,
                "How many files below compaction.target.bytes a done partition must hold to be compacted.",
                GROUP, ++order, Width.SHORT, "Compaction minimum files");
        def.define(COMPACTION_RETENTION_MS, Type.LONG, 6 * 3_600_000L, ConfigDef.Range.atLeast(0L),
                Importance.MEDIUM,
                "How long a compacted partition's old directory is kept after the partition moved to the merged "
                        + "files, in milliseconds: for queries that listed it before the move, and for readers that "
                        + "cache partition locations or file listings (Trino's hive.file-status-cache-expire-time, "
                        + "Spark's spark.sql.hive.filesourcePartitionFileCacheSize and a long-lived session's "
                        + "table cache, Hive LLAP's metadata cache). Default: 6 hours.",
                GROUP, ++order, Width.MEDIUM, "Compaction retention (ms)");
        def.define(COMPACTION_HOLD_MAX_MS, Type.LONG, 600_000L, ConfigDef.Range.atLeast(1_000L), Importance.LOW,
                "How long a compaction holds its partition at most while the batches on their way into it "
                        + "commit, in milliseconds; batches that land in a held partition wait. Past this the "
                        + "compaction is undone; a hold its compactor left (it died) is undone by any task that "
                        + "finds it twice this old.",
                GROUP, ++order, Width.MEDIUM, "Compaction hold (ms)");
        def.define(COMPACTION_CPU_SHARE, Type.DOUBLE, 0.25, ConfigDef.Range.between(0.01, 1.0), Importance.LOW,
                "The share of its time a task's compactions take at most, between 0.01 and 1: after each, the "
                        + "compaction thread rests for as long as the compaction took times (1 - share) / share.",
                GROUP, ++order, Width.SHORT, "Compaction CPU share");
    }

    static CompactionConfig from(AbstractConfig config) {
        return new CompactionConfig(config.getLong(COMPACTION_RETENTION_MS), config.getLong(COMPACTION_HOLD_MAX_MS),
                config.getDouble(COMPACTION_CPU_SHARE));
    }

    static Table tableOf(AbstractConfig config) {
        return new Table(config.getBoolean(COMPACTION_ENABLED), config.getLong(COMPACTION_TARGET_BYTES),
                config.getInt(COMPACTION_MIN_FILES));
    }
}
