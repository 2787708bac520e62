package io.hivesink.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The Done partitions keys: how far in event time a table has landed (its watermark). Per Kafka partition that feeds
 * a table, the greatest event time committed, less the disorder its records may still have
 * ({@code partition.done.lateness.ms}); the table's watermark is the least of these. A table may set them for
 * itself ({@code table.<name>.<key>}).
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public final class DoneConfig {

    public static final String GROUP = "Done partitions";
    public static final String PARTITION_DONE_LATENESS_MS = "partition.done.lateness.ms";

    private DoneConfig() {
    }

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
    }
}
