package io.hivesink.batch;

import java.util.HashMap;
import java.util.Map;

/** Records of the open batch per table, counted on the task thread as they are taken, for per-table limits. */
final class TableCounts {

    private final Map<String, long[]> counts = new HashMap<>();
    /** The counter of the table of the last record counted: consecutive records mostly go to one table. */
    private String lastTable;
    private long[] lastCount;

    @SuppressWarnings("ReferenceEquality") // the last table's counter is reused while the same name instance repeats
    void count(String table) {
        if (table != lastTable) {
            lastTable = table;
            lastCount = counts.computeIfAbsent(table, t -> new long[1]);
        }
        lastCount[0]++;
    }

    long of(String table) {
        long[] count = counts.get(table);
        return count == null ? 0 : count[0];
    }

    void clear() {
        counts.clear();
        lastTable = null;
        lastCount = null;
    }
}
