package io.hivesink.table;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The partition columns of a table: names and Hive types, in directory order. Empty for an unpartitioned table.
 */
public record PartitionSpec(List<String> names, List<String> hiveTypes) {

    public static final PartitionSpec UNPARTITIONED = new PartitionSpec(List.of(), List.of());

    public PartitionSpec {
        names = List.copyOf(names);
        hiveTypes = List.copyOf(hiveTypes);
    }

    private static final Set<String> INTEGERS = Set.of("tinyint", "smallint", "int", "bigint");
    private static final Set<String> NUMBERS = Set.of("float", "double");

    public boolean isPartitioned() {
        return !names.isEmpty();
    }

    /**
     * Why a record whose partition columns have the types of {@code records} cannot land under this table's columns
     * (Hive would read its partitions' values as NULL), or null if it can: text goes under text columns only,
     * integers under integer, decimal, floating-point or text columns, a boolean or a date under its own type or
     * text. Columns are matched by position; their names are checked where the table is.
     */
    public String mismatchWith(PartitionSpec records) {
        for (int i = 0; i < Math.min(hiveTypes.size(), records.hiveTypes.size()); i++) {
            String column = hiveTypes.get(i).toLowerCase(Locale.ROOT);
            String record = records.hiveTypes.get(i).toLowerCase(Locale.ROOT);
            if (!holds(column, record)) {
                return "partition column " + names.get(i) + " is " + column + " in the table, but the record's "
                        + "value for it is " + record;
            }
        }
        return null;
    }

    private static boolean holds(String column, String record) {
        if (column.equals(record) || column.equals("string") || column.startsWith("varchar")
                || column.startsWith("char")) {
            return true;
        }
        if (INTEGERS.contains(record)) {
            return INTEGERS.contains(column) || NUMBERS.contains(column) || column.startsWith("decimal");
        }
        return false;
    }
}
