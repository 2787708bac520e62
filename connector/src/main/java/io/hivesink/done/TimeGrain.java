package io.hivesink.done;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.hivesink.config.TimePattern;

/**
 * The time partitions of a table partitioned by time: spans of its pattern's finest unit (a minute, an hour, a day, a
 * month or a year) in its zone, each named by the pattern's values for its start, such as {@code dt=2026-11-22/hr=05}.
 * A pattern without a finest unit of these (seconds, weeks, an hour of the day without the day) has no grain: which
 * instants share a partition would not be a span of time. Where a zone's clocks go back, an hour's values repeat; the
 * partition runs on until they change.
 */
public final class TimeGrain {

    private final ChronoUnit unit;
    private final ZoneId zone;
    private final List<String> columns;
    private final List<DateTimeFormatter> formats;

    private TimeGrain(ChronoUnit unit, ZoneId zone, List<String> columns, List<DateTimeFormatter> formats) {
        this.unit = unit;
        this.zone = zone;
        this.columns = columns;
        this.formats = formats;
    }

    /**
     * The grain of a pattern such as {@code dt=yyyy-MM-dd/hr=HH} in a zone.
     *
     * @throws IllegalArgumentException saying why the pattern has none
     */
    public static TimeGrain of(String pattern, ZoneId zone) {
        TimePattern parsed = TimePattern.parse(pattern, zone);
        StringBuilder letters = new StringBuilder();
        for (String segment : pattern.trim().split("/", -1)) {
            if (!segment.isBlank()) {
                letters.append(segment.substring(segment.indexOf('=') + 1).replaceAll("'[^']*'", ""));
            }
        }
        String used = letters.toString().replaceAll("[^A-Za-z]", "");
        String why = null;
        if (used.matches(".*[sSnNAa].*")) {
            why = "it names a part finer than a minute (or the half-day)";
        } else if (used.matches(".*[wWYeEcFQqGhKk].*")) {
            why = "weeks, quarters, eras and 12-hour clocks are not spans it can name; use yyyy, MM, dd, HH and mm";
        } else if (!used.matches(".*[yu].*")) {
            why = "it has no year (yyyy)";
        }
        ChronoUnit unit = null;
        if (why == null) {
            boolean day = used.contains("D") || (used.contains("d") && used.matches(".*[ML].*"));
            if (used.contains("m")) {
                unit = used.contains("H") && day ? ChronoUnit.MINUTES : null;
            } else if (used.contains("H")) {
                unit = day ? ChronoUnit.HOURS : null;
            } else if (used.contains("d") || used.contains("D")) {
                unit = day ? ChronoUnit.DAYS : null;
            } else {
                unit = used.matches(".*[ML].*") ? ChronoUnit.MONTHS : ChronoUnit.YEARS;
            }
            if (unit == null) {
                why = "a finer part (minute, hour or day) is named without every coarser one (year, month and day, "
                        + "or day of year: yyyy-MM-dd or yyyy-DDD)";
            }
        }
        if (why != null) {
            throw new IllegalArgumentException("The time partition pattern '" + pattern + "' does not split time "
                    + "into spans: " + why + ".");
        }
        return new TimeGrain(unit, zone, parsed.columns(), parsed.formats());
    }

    /** The finest unit of the pattern. */
    public ChronoUnit unit() {
        return unit;
    }

    /**
     * The start of the time partition that holds this instant (epoch milliseconds). Of a watermark: the first time
     * partition not complete, every one before it having ended at or before the watermark.
     */
    public long startOf(long epochMillis) {
        ZonedDateTime at = ZonedDateTime.ofInstant(Instant.ofEpochMilli(epochMillis), zone);
        ZonedDateTime start = switch (unit) {
            case YEARS -> at.withDayOfYear(1).truncatedTo(ChronoUnit.DAYS);
            case MONTHS -> at.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS);
            default -> at.truncatedTo(unit);
        };
        long millis = start.toInstant().toEpochMilli();
        // a repeated hour (clocks going back) belongs to the partition its values name: start at its first instant
        while (true) {
            long before = step(millis, -1);
            if (!values(before).equals(values(millis))) {
                return millis;
            }
            millis = before;
        }
    }

    /** The end (exclusive) of the time partition that starts at {@code start}: the next start. */
    public long endOf(long start) {
        List<String> mine = values(start);
        long next = step(start, 1);
        while (values(next).equals(mine)) {
            next = step(next, 1);
        }
        return next;
    }

    /** The pattern's values for the time partition holding this instant, one per column. */
    public List<String> values(long epochMillis) {
        Instant instant = Instant.ofEpochMilli(epochMillis);
        List<String> values = new ArrayList<>(formats.size());
        for (DateTimeFormatter format : formats) {
            values.add(format.format(instant));
        }
        return values;
    }

    /** The partition columns the pattern names, in order. */
    public List<String> columns() {
        return columns;
    }

    /**
     * The start of the time partition these values name (one per column, as {@link #values} gives them), or
     * {@link Long#MIN_VALUE} if they name none (Hive's default partition, text of another pattern).
     */
    public long startOfValues(List<String> named) {
        if (named.size() != formats.size()) {
            return Long.MIN_VALUE;
        }
        Map<ChronoField, Long> fields = new EnumMap<>(ChronoField.class);
        try {
            for (int i = 0; i < formats.size(); i++) {
                TemporalAccessor parsed = formats.get(i).parse(named.get(i));
                for (ChronoField field : READ) {
                    if (parsed.isSupported(field)) {
                        fields.put(field, parsed.getLong(field));
                    }
                }
            }
            boolean dayOfYear = fields.containsKey(ChronoField.DAY_OF_YEAR)
                    && !fields.containsKey(ChronoField.MONTH_OF_YEAR);
            LocalDate day = dayOfYear ? LocalDate.ofYearDay(fields.get(ChronoField.YEAR).intValue(),
                            fields.get(ChronoField.DAY_OF_YEAR).intValue())
                    : LocalDate.of(fields.get(ChronoField.YEAR).intValue(),
                            fields.getOrDefault(ChronoField.MONTH_OF_YEAR, 1L).intValue(),
                            fields.getOrDefault(ChronoField.DAY_OF_MONTH, 1L).intValue());
            LocalDateTime at = day.atTime(fields.getOrDefault(ChronoField.HOUR_OF_DAY, 0L).intValue(),
                    fields.getOrDefault(ChronoField.MINUTE_OF_HOUR, 0L).intValue());
            // a time the clocks skip is in the partition after it; one they repeat, in the partition it names
            long start = startOf(ZonedDateTime.ofLocal(at, zone, null).toInstant().toEpochMilli());
            return values(start).equals(named) ? start : Long.MIN_VALUE;
        } catch (DateTimeException | NullPointerException | ArithmeticException e) {
            return Long.MIN_VALUE;
        }
    }

    private static final List<ChronoField> READ = List.of(ChronoField.YEAR, ChronoField.MONTH_OF_YEAR,
            ChronoField.DAY_OF_MONTH, ChronoField.DAY_OF_YEAR, ChronoField.HOUR_OF_DAY, ChronoField.MINUTE_OF_HOUR);

    private long step(long millis, int units) {
        return ZonedDateTime.ofInstant(Instant.ofEpochMilli(millis), zone).plus(units, unit).toInstant()
                .toEpochMilli();
    }

    @Override
    public String toString() {
        return unit.name().toLowerCase(Locale.ROOT) + " in " + zone;
    }
}
