package io.hivesink.batch;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.avro.Schema;

import io.hivesink.avro.ConnectSchemaMapper;
import io.hivesink.avro.DatumEncoder;
import io.hivesink.avro.StructEncoder;
import io.hivesink.route.FieldPartitioner;

/**
 * Caches a {@link TableLayout} per (table, Connect schema). Converters usually hand out the same schema object for
 * every record of a topic, so the identity check on the last schema answers most look-ups without a deep compare.
 */
public final class TableLayouts {

    private final String namespace;
    private final List<String> partitionFields;
    private final Map<String, Map<org.apache.kafka.connect.data.Schema, TableLayout>> byTable = new HashMap<>();
    private final Map<String, TableLayout> lastByTable = new HashMap<>();
    private final Map<String, org.apache.kafka.connect.data.Schema> lastSchemaByTable = new HashMap<>();

    public TableLayouts(String namespace, List<String> partitionFields) {
        this.namespace = namespace;
        this.partitionFields = List.copyOf(partitionFields);
    }

    public TableLayout layoutFor(String table, org.apache.kafka.connect.data.Schema valueSchema) {
        TableLayout last = lastByTable.get(table);
        if (last != null && lastSchemaByTable.get(table) == valueSchema) {
            return last;
        }
        TableLayout layout = byTable.computeIfAbsent(table, t -> new HashMap<>())
                .computeIfAbsent(valueSchema, s -> build(table, s));
        lastByTable.put(table, layout);
        lastSchemaByTable.put(table, valueSchema);
        return layout;
    }

    private TableLayout build(String table, org.apache.kafka.connect.data.Schema valueSchema) {
        FieldPartitioner partitioner = FieldPartitioner.forSchema(valueSchema, partitionFields);
        Set<String> excluded = new HashSet<>(partitionFields);
        Schema avro = ConnectSchemaMapper.toAvro(valueSchema, namespace, table, excluded);
        return new TableLayout(table, avro, partitioner, new DatumEncoder(StructEncoder.compile(valueSchema, avro)));
    }
}
