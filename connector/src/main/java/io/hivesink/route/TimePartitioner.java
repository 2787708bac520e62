package io.hivesink.route;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.config.PartitionConfig;
import io.hivesink.config.TimePattern;
import io.hivesink.table.PartitionSpec;

/**
 * {@code time}: partitions by event time, as directories such as {@code dt=2026-11-22/hr=05} in a chosen time zone.
 * The time is the Kafka record's timestamp, or a field ({@code partition.time.field}) holding a Connect Timestamp or
 * Date, an epoch number ({@code partition.time.field.unit}), or text ({@code partition.time.field.format}, ISO-8601
 * when empty). A record without a time lands in Hive's default partition.
 */
public final class TimePartitioner implements Partitioner {

    private String fieldName = "";
    private TimeUnit unit = TimeUnit.MILLISECONDS;
    private DateTimeFormatter textFormat;
    private String textFormatPattern = "";
    private ZoneId zone = ZoneId.of("UTC");
    private TimePattern pattern = TimePattern.parse("dt=yyyy-MM-dd", zone);

    @Override
    public void configure(Map<String, String> settings) {
        PartitionConfig.Time config = PartitionConfig.timeOf(settings);
        fieldName = config.field();
        unit = config.fieldUnit();
        zone = config.zone();
        String format = config.fieldFormat();
        textFormatPattern = format;
        textFormat = format.isEmpty() ? null : DateTimeFormatter.ofPattern(format, java.util.Locale.ROOT);
        pattern = TimePattern.parse(config.pattern(), zone);
    }

    @Override
    public Binding bind(Schema valueSchema) {
        PartitionSpec spec = new PartitionSpec(pattern.columns(), Collections.nCopies(pattern.columns().size(),
                "string"));
        TimeSource source = fieldName.isEmpty() ? (record, value) -> record.timestamp() : fieldSource(valueSchema);
        return new Binding() {
            private final ThreadLocal<Formatted> last = ThreadLocal.withInitial(Formatted::new);

            @Override
            public PartitionSpec spec() {
                return spec;
            }

            @Override
            public Set<String> fieldsRead() {
                return fieldName.isEmpty() ? Set.of() : Set.of(fieldName);
            }

            @Override
            public void values(SinkRecord record, Struct value, List<String> out) {
                Formatted cache = last.get();
                Long millis = source.epochMillis(record, value);
                cache.remember(record, millis);
                if (millis == null) {
                    for (int i = 0; i < spec.names().size(); i++) {
                        out.add(null);
                    }
                    return;
                }
                out.addAll(Arrays.asList(format(millis, cache)));
            }

            @Override
            public long eventTime(SinkRecord record, Struct value) {
                Formatted cache = last.get();
                if (!cache.holds(record)) {
                    cache.remember(record, source.epochMillis(record, value));
                }
                return cache.eventTime;
            }
        };
    }

    /**
     * The formatted columns of the last time seen on this thread (records of one minute share them), and the last
     * record's event time, which {@link Partitioner.Binding#eventTime} asks for right after its values.
     */
    private static final class Formatted {
        long minute = Long.MIN_VALUE;
        String[] values;
        private String topic;
        private int partition;
        private long offset;
        long eventTime = NO_EVENT_TIME;

        void remember(SinkRecord record, Long millis) {
            topic = record.topic();
            partition = record.kafkaPartition() == null ? -1 : record.kafkaPartition();
            offset = record.kafkaOffset();
            eventTime = millis == null ? NO_EVENT_TIME : millis;
        }

        boolean holds(SinkRecord record) {
            return offset == record.kafkaOffset() && record.kafkaPartition() != null
                    && partition == record.kafkaPartition() && java.util.Objects.equals(topic, record.topic());
        }
    }

    private String[] format(long millis, Formatted cache) {
        long minute = Math.floorDiv(millis, 60_000L);
        if (!pattern.finerThanMinutes() && cache.minute == minute) {
            return cache.values;
        }
        Instant instant = Instant.ofEpochMilli(millis);
        String[] values = new String[pattern.formats().size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = pattern.formats().get(i).format(instant);
        }
        cache.minute = minute;
        cache.values = values;
        return values;
    }

    /** The event time of a record, in epoch milliseconds, or null. */
    private interface TimeSource {
        Long epochMillis(SinkRecord record, Struct value);
    }

    private TimeSource fieldSource(Schema valueSchema) {
        Field field = valueSchema.field(fieldName);
        if (field == null) {
            throw new DataException("Time field '" + fieldName + "' is not a top-level field of the record schema "
                    + "(fields: " + valueSchema.fields().stream().map(Field::name).toList() + "). Fix "
                    + PartitionConfig.PARTITION_TIME_FIELD + " or the records.");
        }
        Schema schema = field.schema();
        String logical = schema.name();
        if (org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME.equals(logical)
                || org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(logical)) {
            return (record, value) -> {
                Object v = value.get(field);
                return v == null ? null : ((java.util.Date) v).getTime();
            };
        }
        if (logical == null && schema.type() == Schema.Type.INT64) {
            return (record, value) -> {
                Object v = value.get(field);
                return v == null ? null : unit.toMillis((Long) v);
            };
        }
        if (schema.type() == Schema.Type.STRING) {
            return (record, value) -> {
                Object v = value.get(field);
                return v == null || v.toString().isEmpty() ? null : parse(v.toString());
            };
        }
        throw new DataException("Time field '" + fieldName + "' has type " + schema.type()
                + (logical != null ? " (" + logical + ")" : "") + "; the time partitioner reads a Timestamp, a "
                + "Date, an int64 epoch (" + PartitionConfig.PARTITION_TIME_FIELD_UNIT + ") or a string ("
                + PartitionConfig.PARTITION_TIME_FIELD_FORMAT + ").");
    }

    private long parse(String text) {
        try {
            if (textFormat != null) {
                return toInstant(textFormat.parse(text)).toEpochMilli();
            }
            return parseIso(text).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new DataException("Time field '" + fieldName + "' holds '" + text + "', which does not parse as "
                    + (textFormat == null ? "an ISO-8601 date or time" : "'" + textFormatPattern + "'")
                    + ": " + e.getMessage() + ". Fix " + PartitionConfig.PARTITION_TIME_FIELD_FORMAT
                    + " or the records.", e);
        }
    }

    /** Text without a zone is read in {@code partition.time.zone}; a date alone is its start of day. */
    private Instant toInstant(TemporalAccessor parsed) {
        if (parsed.isSupported(java.time.temporal.ChronoField.INSTANT_SECONDS)) {
            return Instant.from(parsed);
        }
        if (parsed.isSupported(java.time.temporal.ChronoField.HOUR_OF_DAY)) {
            return LocalDateTime.from(parsed).atZone(zone).toInstant();
        }
        return LocalDate.from(parsed).atStartOfDay(zone).toInstant();
    }

    private Instant parseIso(String text) {
        List<DateTimeParseException> failures = new ArrayList<>(1);
        for (DateTimeFormatter iso : List.of(DateTimeFormatter.ISO_OFFSET_DATE_TIME, DateTimeFormatter.ISO_INSTANT)) {
            try {
                return Instant.from(iso.parse(text));
            } catch (DateTimeParseException e) {
                failures.add(e);
            }
        }
        try {
            return LocalDateTime.parse(text).atZone(zone).toInstant();
        } catch (DateTimeParseException e) {
            // fall through to a date
        }
        try {
            return LocalDate.parse(text).atStartOfDay(zone).toInstant();
        } catch (DateTimeParseException e) {
            throw failures.get(0);
        }
    }
}
