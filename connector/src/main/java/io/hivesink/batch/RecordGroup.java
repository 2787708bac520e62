package io.hivesink.batch;

import io.hivesink.format.DatumSource;
import io.hivesink.table.PartitionValues;

/**
 * The records of a batch that go to one file: one table, one partition, one schema, in arrival order, and what
 * they are (offsets, timestamps) for the ledger.
 */
public record RecordGroup(TableLayout layout, PartitionValues partition, DatumSource datums, GroupStats stats) {

    public String table() {
        return layout.table();
    }
}
