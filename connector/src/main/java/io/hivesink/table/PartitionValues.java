package io.hivesink.table;

import java.util.List;
import java.util.Objects;

/**
 * One partition's values, as the metastore stores them (unescaped strings), and its relative directory as Hive
 * names it ({@code a=1/b=x%2Fy}).
 */
public final class PartitionValues {

    public static final PartitionValues NONE = new PartitionValues(List.of(), List.of());

    private final List<String> names;
    private final List<String> values;
    private String path;

    public PartitionValues(List<String> names, List<String> values) {
        this.names = names;
        this.values = List.copyOf(values);
    }

    /** The partition columns' names, in order. */
    public List<String> names() {
        return names;
    }

    public List<String> values() {
        return values;
    }

    /** The directory under the table's location, empty when unpartitioned. */
    public String path() {
        if (path == null) {
            path = escapedPath(); // computed per group, not per record
        }
        return path;
    }

    private String escapedPath() {
        StringBuilder p = new StringBuilder();
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) {
                p.append('/');
            }
            p.append(HivePaths.escapePathName(names.get(i))).append('=')
                    .append(HivePaths.escapePathName(values.get(i)));
        }
        return p.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PartitionValues other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(values);
    }

    @Override
    public String toString() {
        return values.isEmpty() ? "(unpartitioned)" : path();
    }
}
