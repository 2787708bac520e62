package io.hivesink.batch;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.apache.avro.Schema;
import org.apache.kafka.connect.errors.DataException;

import io.hivesink.avro.ConnectSchemaMapper;
import io.hivesink.avro.StructEncoder;
import io.hivesink.route.FieldPartitioner;
import io.hivesink.route.PartitionScheme;
import io.hivesink.route.Partitioner;

/**
 * One {@link TableLayout} per (table, Connect schema), shared by the encoding threads. A look-up compares schemas
 * deeply, so callers keep the last layout they used and ask again only when the schema object changes. A schema
 * that a table cannot take gets a rejected layout, so that its records fail fast without asking the metastore again.
 */
public final class TableLayouts {

    private final String namespace;
    private final Function<String, List<Partitioner>> partitionersFor;
    private final TableAdmission admission;
    private final Map<String, List<Partitioner>> partitioners = new ConcurrentHashMap<>();
    private final Map<String, Map<org.apache.kafka.connect.data.Schema, TableLayout>> byTable =
            new ConcurrentHashMap<>();

    /** Every table partitioned by the same fields, admitted without a metastore: for tests and benchmarks. */
    public TableLayouts(String namespace, List<String> partitionFields) {
        this(namespace, table -> partitionFields.isEmpty() ? List.of()
                : List.of(new FieldPartitioner(partitionFields)), TableAdmission.ANY);
    }

    /**
     * @param partitionersFor the configured partitioners of a table, asked once per table
     * @param admission       creates or evolves a table for a new record schema, or refuses it
     */
    public TableLayouts(String namespace, Function<String, List<Partitioner>> partitionersFor,
            TableAdmission admission) {
        this.namespace = namespace;
        this.partitionersFor = partitionersFor;
        this.admission = admission;
    }

    public TableLayout layoutFor(String table, org.apache.kafka.connect.data.Schema valueSchema) {
        return byTable.computeIfAbsent(table, t -> new ConcurrentHashMap<>())
                .computeIfAbsent(valueSchema, s -> build(table, s));
    }

    private TableLayout build(String table, org.apache.kafka.connect.data.Schema valueSchema) {
        try {
            PartitionScheme scheme = PartitionScheme.bind(partitioners.computeIfAbsent(table, partitionersFor),
                    valueSchema);
            Schema avro = ConnectSchemaMapper.toAvro(valueSchema, namespace, table, scheme.fieldsAsColumns());
            admission.admit(table, avro, scheme.spec());
            return new TableLayout(table, avro, scheme, StructEncoder.compile(valueSchema, avro));
        } catch (DataException e) {
            return TableLayout.rejected(table, e);
        }
    }
}
