package io.hivesink.done;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per table, how far its done marks reach as far as this task knows: the end of the last time partition marked done,
 * by this task or by another whose mark it found. A record of an earlier time partition is late
 * ({@code partition.late.policy}). Written by the marking, read by the encoding threads; a bound only moves forward.
 */
public final class DoneBounds {

    private final Map<String, Long> markedUntil = new ConcurrentHashMap<>();

    /** Every time partition of {@code table} that starts before {@code until} is marked done (or never will be). */
    public void advanced(String table, long until) {
        markedUntil.merge(table, until, Math::max);
    }

    /** Where the table's marks reach: time partitions starting before it are marked; Long.MIN_VALUE: none known. */
    public long markedUntil(String table) {
        return markedUntil.getOrDefault(table, Long.MIN_VALUE);
    }
}
