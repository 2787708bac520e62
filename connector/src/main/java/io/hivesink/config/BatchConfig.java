package io.hivesink.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** The Batching keys: when the open batch is written and committed. */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record BatchConfig(int maxRecords, long maxBytes, long maxIntervalMs, long maxIdleMs, long memoryBudgetBytes,
        boolean pipelined, boolean resumeAheadFromLogStart) {

    public static final String GROUP = "Batching";
    public static final String BATCH_MAX_RECORDS = "batch.max.records";
    public static final String BATCH_MAX_BYTES = "batch.max.bytes";
    public static final String BATCH_MAX_INTERVAL_MS = "batch.max.interval.ms";
    public static final String BATCH_MAX_IDLE_MS = "batch.max.idle.ms";
    public static final String MEMORY_BUDGET_BYTES = "memory.budget.bytes";
    public static final String BATCH_PIPELINED = "batch.pipelined";
    public static final String OFFSETS_AHEAD_POLICY = "offsets.ahead.policy";

    static void define(ConfigDef def) {
        int order = 0;
        def.define(BATCH_MAX_RECORDS, Type.INT, 1_000_000, ConfigDef.Range.between(1, 50_000_000),
                Importance.HIGH,
                "A batch is written and committed once it holds this many records.",
                GROUP, ++order, Width.SHORT, "Batch records");
        def.define(BATCH_MAX_BYTES, Type.LONG, 512L * 1024 * 1024,
                ConfigDef.Range.between(1024L, 64L * 1024 * 1024 * 1024), Importance.MEDIUM,
                "A batch is written and committed once its records take this many bytes, encoded as Avro and "
                        + "held in memory. Keep it well under the worker's heap.",
                GROUP, ++order, Width.SHORT, "Batch bytes");
        def.define(BATCH_MAX_INTERVAL_MS, Type.LONG, 300_000L, ConfigDef.Range.between(100L, 24L * 3600 * 1000),
                Importance.MEDIUM,
                "A batch is written and committed at the latest this long after its first record arrived, "
                        + "also when no more records come (the task asks Connect to call it by then). The worker's "
                        + "offset commits (offset.flush.interval.ms) do not end a batch: they report what the "
                        + "metastore holds. A batch also ends when its partitions are closed (a rebalance, a stop).",
                GROUP, ++order, Width.SHORT, "Batch interval");
        def.define(BATCH_MAX_IDLE_MS, Type.LONG, 0L, Validators.offOrBetween(100L, 24L * 3600 * 1000),
                Importance.LOW,
                "A batch is written and committed once no record has come to it for this long, so that the tail "
                        + "of a burst lands without waiting out batch.max.interval.ms; each such close makes "
                        + "smaller files. The batch is the task's, across all its tables: a topic that keeps "
                        + "trickling keeps it open. 0: off, only the other limits close a batch; a value at or above "
                        + "batch.max.interval.ms changes nothing.",
                GROUP, ++order, Width.SHORT, "Batch idle time");
        def.define(MEMORY_BUDGET_BYTES, Type.LONG, 0L, ConfigDef.Range.atLeast(0L), Importance.MEDIUM,
                "The heap that the batches of all hive-sink tasks in one worker may hold together, whatever "
                        + "connector they belong to; 0: 40% of the worker's max heap (-Xmx). Once it is full, the "
                        + "task holding the most closes its batch early and commits it, and the others pause their "
                        + "partitions until it has room again (logged at INFO). When connectors set different "
                        + "values, the smallest holds. While a batch is written, what its files' writer holds (a "
                        + "Parquet row group, ORC stripes) is counted too. Connect's consumers and the file "
                        + "system's buffers come on top: leave the rest of the heap for them.",
                GROUP, ++order, Width.SHORT, "Memory budget");
        def.define(BATCH_PIPELINED, Type.BOOLEAN, true, Validators.bool(), Importance.LOW,
                "Whether a task takes and encodes its next batch while the previous one is written, staged and "
                        + "committed on a thread of its own. One batch at a time is in flight, and batches commit "
                        + "in order; the batch in flight counts in the memory budget with the open one. false: "
                        + "put() waits for each commit, and a task holds one batch at a time.",
                GROUP, ++order, Width.SHORT, "Pipelined batches");
        def.define(OFFSETS_AHEAD_POLICY, Type.STRING, "fail", ConfigDef.ValidString.in("fail", "log-start"),
                Importance.LOW,
                "What a task does when the offset committed in the metastore for a partition it is assigned lies "
                        + "past the end of that partition's log in Kafka: the topic was deleted and created again, "
                        + "or the log was truncated (an unclean leader election). Read from there, the records "
                        + "below the committed offset would be skipped as landed. fail: the task fails, naming the "
                        + "partition and both offsets; check what happened to the topic, then restart it with "
                        + "log-start, or move the committed offset yourself. log-start: the partition is read from "
                        + "the start of its log, and its committed offset in the metastore is moved there "
                        + "(logged, and counted in offsets-ahead-of-log-total). On a recreated topic that lands each "
                        + "new record once; on a truncated log it lands again every record the log kept below the "
                        + "old committed offset (they landed before the truncation): duplicates, which the ledger's "
                        + "batches show by their offsets. Checked against the log the task's consumer sees, on "
                        + "Connect 3.x and 4.x.",
                GROUP, ++order, Width.SHORT, "Offsets ahead of the log");
    }

    static BatchConfig from(AbstractConfig config) {
        return new BatchConfig(config.getInt(BATCH_MAX_RECORDS), config.getLong(BATCH_MAX_BYTES),
                config.getLong(BATCH_MAX_INTERVAL_MS), config.getLong(BATCH_MAX_IDLE_MS),
                config.getLong(MEMORY_BUDGET_BYTES),
                config.getBoolean(BATCH_PIPELINED), "log-start".equals(config.getString(OFFSETS_AHEAD_POLICY)));
    }
}
