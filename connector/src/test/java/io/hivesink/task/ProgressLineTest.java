package io.hivesink.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class ProgressLineTest {

    @Test
    void aSummaryAtMostOnceAMinuteAndOnlyAfterCommits() {
        AtomicLong now = new AtomicLong(0);
        Map<String, Long> lags = new TreeMap<>(Map.of("orders", 4_200L, "returns", 61_000L));
        ProgressLine progress = new ProgressLine("0 of shop", now::get, () -> lags);

        progress.committed(600_000, 40 << 20);
        now.set(59_999);
        assertNull(progress.summaryIfDue(1_000, 1 << 20), "not before a minute");
        progress.committed(600_000, 40 << 20);
        now.set(60_000);
        assertEquals("Task 0 of shop: 2 batches, 1200000 records (20000 records/s, 80.0 MiB) in the last 60 s; open "
                + "batch 1000 records (1.0 MiB); lag per table: orders 4.2 s, returns 61.0 s",
                progress.summaryIfDue(1_000, 1 << 20));
        now.set(200_000);
        assertNull(progress.summaryIfDue(0, 0), "nothing committed since: nothing to say");
    }
}
