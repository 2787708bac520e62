package io.hivesink.done;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The time partitions a pattern names: their unit, where each starts and ends, in the pattern's zone. */
class TimeGrainTest {

    private static long at(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    @Test
    void hoursDaysAndMonthsStartAndEndInTheZone() {
        TimeGrain hours = TimeGrain.of("dt=yyyy-MM-dd/hr=HH", ZoneOffset.UTC);
        assertEquals(ChronoUnit.HOURS, hours.unit());
        assertEquals(at("2026-11-22T05:00:00Z"), hours.startOf(at("2026-11-22T05:59:59.999Z")));
        assertEquals(at("2026-11-22T05:00:00Z"), hours.startOf(at("2026-11-22T05:00:00Z")), "a start is its own");
        assertEquals(at("2026-11-22T06:00:00Z"), hours.endOf(at("2026-11-22T05:00:00Z")));
        assertEquals(List.of("2026-11-22", "05"), hours.values(at("2026-11-22T05:30:00Z")));

        TimeGrain kolkataDays = TimeGrain.of("dt=yyyy-MM-dd", ZoneId.of("Asia/Kolkata"));
        assertEquals(ChronoUnit.DAYS, kolkataDays.unit());
        assertEquals(at("2026-11-21T18:30:00Z"), kolkataDays.startOf(at("2026-11-22T05:00:00Z")));
        assertEquals(at("2026-11-22T18:30:00Z"), kolkataDays.endOf(at("2026-11-21T18:30:00Z")));

        assertEquals(ChronoUnit.MONTHS, TimeGrain.of("year=yyyy/month=MM", ZoneOffset.UTC).unit());
        assertEquals(at("2026-11-01T00:00:00Z"), TimeGrain.of("year=yyyy/month=MM", ZoneOffset.UTC)
                .startOf(at("2026-11-22T05:00:00Z")));
        assertEquals(ChronoUnit.MINUTES, TimeGrain.of("dt=yyyy-DDD/t=HH'h'mm", ZoneOffset.UTC).unit(),
                "a day of the year is a day; quoted text is no field");
        assertEquals(ChronoUnit.YEARS, TimeGrain.of("y=yyyy", ZoneOffset.UTC).unit());
    }

    @Test
    void anHourTheClocksGoBackThroughIsOnePartitionOfTwoHours() {
        // Paris, 2026-10-25: 03:00 summer time becomes 02:00 winter time; hr=02 spans 00:00Z to 02:00Z
        TimeGrain paris = TimeGrain.of("dt=yyyy-MM-dd/hr=HH", ZoneId.of("Europe/Paris"));
        assertEquals(at("2026-10-25T00:00:00Z"), paris.startOf(at("2026-10-25T01:30:00Z")));
        assertEquals(at("2026-10-25T02:00:00Z"), paris.endOf(at("2026-10-25T00:00:00Z")));
        assertEquals(List.of("2026-10-25", "03"), paris.values(at("2026-10-25T02:00:00Z")));
        // and the hour the clocks skip (2026-03-29, 02:00 to 03:00) is no partition
        assertEquals(at("2026-03-29T01:00:00Z"), paris.endOf(at("2026-03-29T00:00:00Z")));
        assertEquals(List.of("2026-03-29", "03"), paris.values(at("2026-03-29T01:00:00Z")));
    }

    @Test
    void aPatternThatDoesNotSplitTimeIntoSpansIsRefusedSayingWhy() {
        Map<String, String> refused = Map.of(
                "hr=HH", "no year",
                "y=yyyy/hr=HH", "without every coarser one",
                "dt=yyyy-MM-dd/s=ss", "finer than a minute",
                "y=YYYY/w=ww", "weeks",
                "dt=yyyy-MM-dd/h=hh", "12-hour");
        refused.forEach((pattern, why) -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> TimeGrain.of(pattern, ZoneOffset.UTC), pattern);
            assertTrue(e.getMessage().contains("'" + pattern + "'") && e.getMessage().contains(why),
                    pattern + ": " + e.getMessage());
        });
    }

    @Test
    void aTableIsCompleteBeforeTheStartOfTheTimePartitionItsWatermarkIsIn() {
        TimeGrain hours = TimeGrain.of("dt=yyyy-MM-dd/hr=HH", ZoneOffset.UTC);
        TableWatermarks watermarks = new TableWatermarks(table -> tp -> true, table -> 0,
                table -> table.equals("hourly") ? hours : null);
        watermarks.track("hourly");
        watermarks.track("unpatterned");
        assertEquals(Watermarks.NONE, watermarks.completeBefore("hourly"), "no watermark yet");
        watermarks.update(Map.of(new org.apache.kafka.common.TopicPartition("t", 0), at("2026-11-22T05:00:00Z")));
        assertEquals(at("2026-11-22T05:00:00Z"), watermarks.completeBefore("hourly"),
                "hour 04 ends at the watermark: complete; hour 05 is not");
        watermarks.update(Map.of(new org.apache.kafka.common.TopicPartition("t", 0), at("2026-11-22T05:59:00Z")));
        assertEquals(at("2026-11-22T05:00:00Z"), watermarks.completeBefore("hourly"));
        assertEquals(Watermarks.NONE, watermarks.completeBefore("unpatterned"));
    }

    @Test
    void valuesReadBackToTheStartOfThePartitionTheyName() {
        TimeGrain hours = TimeGrain.of("dt=yyyy-MM-dd/hr=HH", ZoneOffset.UTC);
        assertEquals(List.of("dt", "hr"), hours.columns());
        assertEquals(at("2026-11-22T05:00:00Z"), hours.startOfValues(List.of("2026-11-22", "05")));
        assertEquals(Long.MIN_VALUE, hours.startOfValues(List.of("__HIVE_DEFAULT_PARTITION__",
                "__HIVE_DEFAULT_PARTITION__")), "Hive's default partition names no time");
        assertEquals(Long.MIN_VALUE, hours.startOfValues(List.of("2026-11-22")), "one value short");
        assertEquals(Long.MIN_VALUE, hours.startOfValues(List.of("2026-11-22", "5")), "not as the pattern writes it");

        TimeGrain paris = TimeGrain.of("dt=yyyy-MM-dd/hr=HH", ZoneId.of("Europe/Paris"));
        assertEquals(at("2026-10-25T00:00:00Z"), paris.startOfValues(List.of("2026-10-25", "02")),
                "the hour the clocks go back through starts at its first instant");
        for (String pattern : List.of("y=yyyy", "year=yyyy/month=MM", "dt=yyyy-DDD/t=HH'h'mm", "dt=yyyy-MM-dd")) {
            TimeGrain grain = TimeGrain.of(pattern, ZoneId.of("Asia/Kolkata"));
            long start = grain.startOf(at("2026-03-09T17:41:00Z"));
            assertEquals(start, grain.startOfValues(grain.values(start)), pattern);
        }
    }
}
