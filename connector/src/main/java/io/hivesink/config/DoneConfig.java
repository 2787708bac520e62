package io.hivesink.config;

import java.util.LinkedHashMap;
import java.util.Map;

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
public record DoneConfig(long idleMs, boolean markers, String table, long backfillMs) {

    public static final String GROUP = "Done partitions";
    public static final String PARTITION_DONE_LATENESS_MS = "partition.done.lateness.ms";
    public static final String PARTITION_DONE_IDLE_MS = "partition.done.idle.ms";
    public static final String PARTITION_DONE_MARKERS = "partition.done.markers";
    public static final String PARTITION_DONE_DELAY_MS = "partition.done.delay.ms";
    public static final String PARTITION_DONE_SUCCESS_FILE = "partition.done.success.file";
    public static final String PARTITION_DONE_TABLE = "partition.done.table";
    public static final String PARTITION_DONE_BACKFILL_MS = "partition.done.backfill.ms";
    public static final String PARTITION_LATE_POLICY = "partition.late.policy";

    /** What becomes of a record whose time partition is already marked done. */
    public enum LatePolicy {
        /** It lands as any other, counted in the ledger's late_records and the late-records-total metric. */
        LAND,
        /** It goes to the errant-record reporter (the dead-letter queue or the error log) and does not land. */
        DLQ,
        /** The task fails at it. */
        FAIL;

        public String value() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        static LatePolicy of(String value) {
            return valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
        }
    }

    /**
     * The keys a table may set for itself.
     *
     * @param latenessMs  the disorder allowed within a Kafka partition's event times
     * @param delayMs     how long past its end, in event time, a time partition is marked done
     * @param successFile whether a done Hive partition gets a {@code _SUCCESS} file
     * @param latePolicy  what becomes of a record whose time partition is already marked done
     */
    public record Table(long latenessMs, long delayMs, boolean successFile, LatePolicy latePolicy) {
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
        def.define(PARTITION_DONE_IDLE_MS, Type.LONG, 600_000L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "How long a Kafka partition must have landed everything its log holds before it stops holding "
                        + "watermarks back, in milliseconds: from then on, and for as long as it stays caught up, "
                        + "its task counts the wall clock as its event time, so that a topic that stops receiving "
                        + "records (at midnight, say) still lets its tables' watermarks advance. 0: never (a "
                        + "partition that receives nothing holds its tables back). A partition of a topic written "
                        + "by transactions ends with a transaction marker, not a record, and is never caught up.",
                GROUP, ++order, Width.MEDIUM, "Idle partitions (ms)");
        def.define(PARTITION_DONE_MARKERS, Type.BOOLEAN, true, Validators.bool(), Importance.MEDIUM,
                "Whether the time partitions of tables partitioned by time are marked done once complete: when "
                        + "a time partition's end plus partition.done.delay.ms is at or below its table's "
                        + "watermark, its Hive partitions get the parameter hive-sink.done.time (and "
                        + "partition.done.success.file a _SUCCESS file), then a row in the done table "
                        + "(partition.done.table) marks it. Time partitions are marked in order, each once, from "
                        + "the first the table holds.",
                GROUP, ++order, Width.SHORT, "Mark done partitions");
        def.define(PARTITION_DONE_DELAY_MS, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "How far past its end the table's watermark must be before a time partition is marked done, in "
                        + "milliseconds of event time: on top of partition.done.lateness.ms, for records that "
                        + "may come later still.",
                GROUP, ++order, Width.MEDIUM, "Done delay (ms)");
        def.define(PARTITION_DONE_SUCCESS_FILE, Type.BOOLEAN, true, Validators.bool(), Importance.MEDIUM,
                "Whether each Hive partition of a time partition marked done gets an empty _SUCCESS file in its "
                        + "directory (what Oozie's datasets and Airflow's file sensors wait on), before the done "
                        + "row is written. Hive, Spark and Trino skip files whose names start with an "
                        + "underscore.",
                GROUP, ++order, Width.SHORT, "_SUCCESS files");
        def.define(PARTITION_DONE_TABLE, Type.STRING, "hive_sink_done", Validators.hiveIdentifier(),
                Importance.MEDIUM,
                "The table, in the ledger's database, with one row per time partition marked done, partitioned "
                        + "by (table_name, time_partition), for example (orders, dt=2026-11-22/hr=05). Created if "
                        + "missing. One query tells whether an hour is done in every table the connector writes.",
                GROUP, ++order, Width.MEDIUM, "Done table");
        def.define(PARTITION_DONE_BACKFILL_MS, Type.LONG, 7 * 24 * 3_600_000L, ConfigDef.Range.atLeast(0),
                Importance.LOW,
                "How far before its watermark a table's first done marks start, at most, in milliseconds: a "
                        + "table with no time partition marked yet is marked from its first time partition, or "
                        + "from this long before the watermark if that is later, so that a table with years of "
                        + "history (or a record dated 1970) does not have every hour since marked. Default: 7 "
                        + "days.",
                GROUP, ++order, Width.MEDIUM, "Done backfill (ms)");
        def.define(PARTITION_LATE_POLICY, Type.STRING, LatePolicy.LAND.value(),
                ConfigDef.ValidString.in(LatePolicy.LAND.value(), LatePolicy.DLQ.value(), LatePolicy.FAIL.value()),
                Importance.MEDIUM,
                "What becomes of a late record: one whose time partition its task knows is already marked done "
                        + "(it starts before the end of the last time partition marked). land: it lands as any "
                        + "other, and is counted in the ledger's late_records column for its batch and Hive "
                        + "partition and in the metric late-records-total, so that a job that read the hour can "
                        + "tell it must read it again. dlq: it goes to the errant-record reporter (needs "
                        + "errors.tolerance=all, and errors.deadletterqueue.topic.name or errors.log.enable=true) "
                        + "and does not land. fail: the task fails at it, naming it. A record is checked as it is "
                        + "encoded, against the marks its task knows then: one taken just before its hour was "
                        + "marked lands, and counts as late when its batch commits.",
                GROUP, ++order, Width.SHORT, "Late records");
    }

    /**
     * The late policy dlq, for the connector or a table, against Connect's errors.* settings: key to message.
     *
     * @param props the connector's properties as given
     */
    static Map<String, String> problems(Map<String, ?> props) {
        Map<String, String> problems = new LinkedHashMap<>();
        props.forEach((key, value) -> {
            boolean late = key.equals(PARTITION_LATE_POLICY) || (key.startsWith(TableOverrides.PREFIX)
                    && key.endsWith("." + PARTITION_LATE_POLICY));
            if (late && value != null && LatePolicy.DLQ.value().equalsIgnoreCase(value.toString().trim())) {
                String problem = InputConfig.deadLetterProblem(props, key + "=dlq", "late records");
                if (problem != null) {
                    problems.put(key, problem);
                }
            }
        });
        return problems;
    }

    static DoneConfig from(AbstractConfig config) {
        return new DoneConfig(config.getLong(PARTITION_DONE_IDLE_MS), config.getBoolean(PARTITION_DONE_MARKERS),
                config.getString(PARTITION_DONE_TABLE), config.getLong(PARTITION_DONE_BACKFILL_MS));
    }

    static Table tableOf(AbstractConfig config) {
        return new Table(config.getLong(PARTITION_DONE_LATENESS_MS), config.getLong(PARTITION_DONE_DELAY_MS),
                config.getBoolean(PARTITION_DONE_SUCCESS_FILE), LatePolicy.of(config.getString(PARTITION_LATE_POLICY)));
    }
}
