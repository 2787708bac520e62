package io.hivesink.table;

import java.util.List;

/**
 * The partition columns of a table: names and Hive types, in directory order. Empty for an unpartitioned table.
 */
public record PartitionSpec(List<String> names, List<String> hiveTypes) {

    public static final PartitionSpec UNPARTITIONED = new PartitionSpec(List.of(), List.of());

    public PartitionSpec {
        names = List.copyOf(names);
        hiveTypes = List.copyOf(hiveTypes);
    }

    public boolean isPartitioned() {
        return !names.isEmpty();
    }
}
