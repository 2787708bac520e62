package io.hivesink.metastore;

import java.util.Map;

/**
 * How the connector treats one table: where it creates it, which table properties it gives it, and whether it may
 * change its schema for new records.
 *
 * @param location   the table's directory when the connector creates it, or null for
 *                   {@code <warehouse>/<database>.db/<table>}
 * @param properties extra table properties set when the connector creates it
 * @param evolve     true if compatible schema changes alter the table; false if they are refused
 */
public record TableOptions(String location, Map<String, String> properties, boolean evolve) {

    public static final TableOptions DEFAULTS = new TableOptions(null, Map.of(), true);

    public TableOptions {
        properties = Map.copyOf(properties);
    }
}
