package io.hivesink.batch;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.avro.Schema;

import io.hivesink.avro.ConnectSchemaMapper;
import io.hivesink.avro.StructEncoder;
import io.hivesink.route.FieldPartitioner;

/**
 * One {@link TableLayout} per (table, Connect schema), shared by the encoding threads. A look-up compares schemas
 * deeply, so callers keep the last layout they used and ask again only when the schema object changes.
 */
public final class TableLayouts {

    private final String namespace;
    private final List<String> partitionFields;
    private final Map<String, Map<org.apache.kafka.connect.data.Schema, TableLayout>> byTable =
            new ConcurrentHashMap<>();

    public TableLayouts(String namespace, List<String> partitionFields) {
        this.namespace = namespace;
        this.partitionFields = List.copyOf(partitionFields);
    }

    public TableLayout layoutFor(String table, org.apache.kafka.connect.data.Schema valueSchema) {
        return byTable.computeIfAbsent(table, t -> new ConcurrentHashMap<>())
                .computeIfAbsent(valueSchema, s -> build(table, s));
    }

    private TableLayout build(String table, org.apache.kafka.connect.data.Schema valueSchema) {
        FieldPartitioner partitioner = FieldPartitioner.forSchema(valueSchema, partitionFields);
        Set<String> excluded = new HashSet<>(partitionFields);
        Schema avro = ConnectSchemaMapper.toAvro(valueSchema, namespace, table, excluded);
        return new TableLayout(table, avro, partitioner, StructEncoder.compile(valueSchema, avro));
    }
}
