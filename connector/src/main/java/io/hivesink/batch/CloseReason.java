package io.hivesink.batch;

import java.util.Locale;

/** Why an open batch closed: one of its limits, the memory budget, or its partitions closing. */
public enum CloseReason {
    RECORDS, BYTES, INTERVAL, IDLE, TABLE_RECORDS, MEMORY, PARTITIONS_CLOSED;

    /** The reason in a metric's name: {@code table-records}. */
    public String metricPart() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
