package io.hivesink.config;

import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The Partitioning keys: which partitioners a table has, and the keys of the built-in ones. A built-in partitioner
 * reads only its own keys ({@link #fieldsOf}, {@link #timeOf}) from the settings it is configured with, so that a
 * problem in a key it does not use is not its problem.
 *
 * @param partitioners the partitioners' names, in column order
 * @param fields       the field partitioner's fields
 * @param time         the time partitioner's settings
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record PartitionConfig(List<String> partitioners, List<String> fields, Time time) {

    public static final String GROUP = "Partitioning";
    public static final String PARTITIONER = "partitioner";
    public static final String PARTITION_FIELDS = "partition.fields";
    public static final String PARTITION_TIME_FIELD = "partition.time.field";
    public static final String PARTITION_TIME_FIELD_FORMAT = "partition.time.field.format";
    public static final String PARTITION_TIME_FIELD_UNIT = "partition.time.field.unit";
    public static final String PARTITION_TIME_PATTERN = "partition.time.pattern";
    public static final String PARTITION_TIME_ZONE = "partition.time.zone";

    /**
     * The time partitioner's keys.
     *
     * @param field       the field holding the event time, or empty for the record's timestamp
     * @param fieldFormat the DateTimeFormatter pattern of a text time, or empty for ISO-8601
     * @param fieldUnit   the unit of an epoch number time
     * @param pattern     the partition columns and their formats, as column=format segments
     */
    public record Time(String field, String fieldFormat, TimeUnit fieldUnit, String pattern, ZoneId zone) {
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(PARTITIONER, Type.LIST, "field", Validators.partitioners(), Importance.HIGH,
                "How tables are partitioned: one or more partitioners, whose columns follow one another in this "
                        + "order. field: by the values of partition.fields. time: by event time, as "
                        + "partition.time.pattern says. kafka: by the record's topic and Kafka partition (columns "
                        + "kafka_topic, kafka_partition). Or the full name of a class implementing "
                        + "io.hivesink.route.Partitioner, on the plugin's class path. For example time gives "
                        + "dt=2026-11-22, and time,field with partition.fields=country gives "
                        + "dt=2026-11-22/country=FR. A null or empty value lands in __HIVE_DEFAULT_PARTITION__; "
                        + "values are escaped in directory names as Hive escapes them.",
                GROUP, ++order, Width.LONG, "Partitioners");
        def.define(PARTITION_FIELDS, Type.LIST, "", Validators.partitionFields(), Importance.MEDIUM,
                "For the field partitioner: top-level record fields whose values partition the table, in "
                        + "order, for example country,day gives directories country=FR/day=2026-11-22. Each field "
                        + "must be a string, integer, boolean or Date; it becomes a partition column of the same "
                        + "name and is not stored in the data files (Hive does not allow a column to be both). "
                        + "Empty: the field partitioner adds no column (so by default tables are unpartitioned).",
                GROUP, ++order, Width.LONG, "Partition fields");
        def.define(PARTITION_TIME_PATTERN, Type.STRING, "dt=yyyy-MM-dd",
                Validators.parsedBy("column=format[/column=format...]",
                        text -> TimePattern.parse(text, java.time.ZoneOffset.UTC), ""),
                Importance.MEDIUM,
                "For the time partitioner: the partition columns and their formats, as column=format segments "
                        + "separated by slashes; each format is a java.time DateTimeFormatter pattern. For example "
                        + "dt=yyyy-MM-dd/hr=HH gives dt=2026-11-22/hr=05, and year=yyyy/month=MM/day=dd three "
                        + "columns. The columns are strings.",
                GROUP, ++order, Width.LONG, "Time pattern");
        def.define(PARTITION_TIME_ZONE, Type.STRING, "UTC",
                Validators.parsedBy("a time zone id, e.g. UTC or Europe/Paris", java.time.ZoneId::of,
                        "Not a time zone (give a region such as Europe/Paris, or UTC): "),
                Importance.MEDIUM,
                "For the time partitioner: the time zone the pattern is written in (and text times without a "
                        + "zone are read in), for example UTC or Europe/Paris.",
                GROUP, ++order, Width.MEDIUM, "Time zone");
        def.define(PARTITION_TIME_FIELD, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "For the time partitioner: the top-level field that holds the event time: a Connect Timestamp "
                        + "or Date, an int64 epoch (partition.time.field.unit), or a string "
                        + "(partition.time.field.format). A null time lands in __HIVE_DEFAULT_PARTITION__. Empty: "
                        + "the Kafka record's timestamp.",
                GROUP, ++order, Width.MEDIUM, "Time field");
        def.define(PARTITION_TIME_FIELD_UNIT, Type.STRING, "milliseconds",
                ConfigDef.ValidString.in("seconds", "milliseconds", "microseconds", "nanoseconds"),
                Importance.LOW,
                "For the time partitioner: the unit of an int64 time field since the epoch.",
                GROUP, ++order, Width.SHORT, "Time field unit");
        def.define(PARTITION_TIME_FIELD_FORMAT, Type.STRING, "",
                Validators.parsedBy("a DateTimeFormatter pattern, or empty for ISO-8601",
                        text -> java.time.format.DateTimeFormatter.ofPattern(text, Locale.ROOT),
                        "Not a DateTimeFormatter pattern: "),
                Importance.LOW,
                "For the time partitioner: the DateTimeFormatter pattern of a string time field, for example "
                        + "yyyy-MM-dd HH:mm:ss; a text without a zone is read in partition.time.zone. Empty: "
                        + "ISO-8601 (2026-11-22T05:30:00Z, 2026-11-22T05:30:00+01:00, 2026-11-22T05:30:00 or "
                        + "2026-11-22).",
                GROUP, ++order, Width.MEDIUM, "Time field format");
    }

    static PartitionConfig from(AbstractConfig config) {
        return new PartitionConfig(partitioners(config), fields(config), time(config));
    }

    static List<String> partitioners(AbstractConfig config) {
        return config.getList(PARTITIONER).stream().map(String::trim).filter(p -> !p.isEmpty()).toList();
    }

    /** The field partitioner's fields, read from {@code partition.fields} only. */
    public static List<String> fieldsOf(Map<String, String> settings) {
        return fields(HiveSinkConfig.readKeys(settings, List.of(PARTITION_FIELDS)));
    }

    /** The time partitioner's settings, read from its five keys only. */
    public static Time timeOf(Map<String, String> settings) {
        return time(HiveSinkConfig.readKeys(settings, List.of(PARTITION_TIME_FIELD, PARTITION_TIME_FIELD_FORMAT,
                PARTITION_TIME_FIELD_UNIT, PARTITION_TIME_PATTERN, PARTITION_TIME_ZONE)));
    }

    private static List<String> fields(AbstractConfig config) {
        return List.copyOf(config.getList(PARTITION_FIELDS));
    }

    private static Time time(AbstractConfig config) {
        return new Time(config.getString(PARTITION_TIME_FIELD).trim(),
                config.getString(PARTITION_TIME_FIELD_FORMAT).trim(),
                TimeUnit.valueOf(config.getString(PARTITION_TIME_FIELD_UNIT).toUpperCase(Locale.ROOT)),
                config.getString(PARTITION_TIME_PATTERN).trim(),
                ZoneId.of(config.getString(PARTITION_TIME_ZONE).trim()));
    }
}
