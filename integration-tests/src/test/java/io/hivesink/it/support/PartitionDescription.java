package io.hivesink.it.support;

import java.util.Arrays;
import java.util.List;

import io.hivesink.stack.hive.HiveSql;

/** What HiveServer2's {@code DESCRIBE FORMATTED} says of one Hive partition: its location, its parameters. */
public final class PartitionDescription {

    private PartitionDescription() {
    }

    /**
     * A row's value of the description, or null: {@code Location:} for the partition's directory, or a parameter's
     * name.
     *
     * @param partitionPath the partition, as a path under the table ({@code dt=2026-11-29/hr=07})
     */
    public static String of(HiveSql hive, String database, String table, String partitionPath, String key)
            throws Exception {
        String spec = String.join(", ", Arrays.stream(partitionPath.split("/"))
                .map(kv -> kv.replaceFirst("=(.*)", "='$1'")).toList());
        for (List<String> row : hive.query("describe formatted " + database + "." + table + " partition (" + spec
                + ")")) {
            for (int i = 0; i + 1 < row.size(); i++) {
                if (row.get(i) != null && row.get(i).trim().equals(key)) {
                    return row.get(i + 1) == null ? null : row.get(i + 1).trim();
                }
            }
        }
        return null;
    }
}
