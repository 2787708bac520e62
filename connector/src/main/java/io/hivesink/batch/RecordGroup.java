package io.hivesink.batch;

import io.hivesink.avro.EncodedDatums;
import io.hivesink.route.PartitionValues;

/** The records of a batch that go to one file: one table, one partition, one schema, in arrival order. */
public record RecordGroup(TableLayout layout, PartitionValues partition, EncodedDatums datums) {

    public String table() {
        return layout.table();
    }
}
