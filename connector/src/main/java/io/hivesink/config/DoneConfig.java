package io.hivesink.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The Done partitions keys: how far in event time a table has landed (its watermark). Per Kafka partition that feeds
 * a table, the greatest event time committed, less the disorder its records may still have
 * ({@code partition.done.lateness.ms}); the table's watermark is the least of these. A table may set them for
 * itself ({@code table.<name>.<key>}). A Kafka partition that has landed everything its log holds for a while stands in
 * for its event time with the wall clock.
 *
 * @param idleMs how long a caught-up partition waits before the wall clock stands in for its event time; 0: never
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record DoneConfig(long idleMs) {

    public static final String GROUP = "Done partitions";
    public static final String PARTITION_DONE_LATENESS_MS = "partition.done.lateness.ms";
    public static final String PARTITION_DONE_IDLE_MS = "partition.done.idle.ms";

    static void define(ConfigDef def) {
        int order = 0;
        def.define(PARTITION_DONE_LATENESS_MS, Type.LONG, 600_000L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "For tables partitioned by time: how far behind the greatest event time committed from a Kafka "
                        + "partition its later records may still be (the disorder allowed within a partition), in "
                        + "milliseconds. A table's watermark is, over the Kafka partitions that feed it, the least "
                        + "of (greatest event time committed minus this): every record still to come is expected "
                        + "at or after it. Larger values wait longer before an hour counts as landed; records "
                        + "older than the watermark are late. The metrics table-watermark-ms and "
                        + "table-watermark-lag-ms show it.",
                GROUP, ++order, Width.MEDIUM, "Allowed lateness (ms)");
        def.define(PARTITION_DONE_IDLE_MS, Type.LONG, 600_000L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "How long a Kafka partition must have landed everything its log holds before it stops holding "
                        + "watermarks back, in milliseconds: from then on, and for as long as it stays caught up, "
                        + "its task counts the wall clock as its event time, so that a topic that stops receiving "
                        + "records (at midnight, say) still lets its tables' watermarks advance. 0: never (a "
                        + "partition that receives nothing holds its tables back). A partition of a topic written "
                        + "by transactions ends with a transaction marker, not a record, and is never caught up.",
                GROUP, ++order, Width.MEDIUM, "Idle partitions (ms)");
    }

    static DoneConfig from(AbstractConfig config) {
        return new DoneConfig(config.getLong(PARTITION_DONE_IDLE_MS));
    }
}
