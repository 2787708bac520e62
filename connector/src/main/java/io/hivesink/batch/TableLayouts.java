package io.hivesink.batch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.apache.avro.Schema;
import org.apache.kafka.connect.errors.DataException;

import io.hivesink.avro.ConnectSchemaMapper;
import io.hivesink.avro.StructEncoder;
import io.hivesink.confluent.DatumFields;
import io.hivesink.route.FieldPartitioner;
import io.hivesink.route.PartitionScheme;
import io.hivesink.route.Partitioner;

/**
 * One {@link TableLayout} per (table, record schema), shared by the encoding threads. A look-up compares schemas
 * deeply, so callers keep the last layout they used and ask again only when the schema object changes. A schema
 * that a table cannot take gets a rejected layout, so that its records fail fast without asking the metastore again.
 */
public final class TableLayouts {

    private final String namespace;
    private final Function<String, List<Partitioner>> partitionersFor;
    private final TableAdmission admission;
    private final Map<String, List<Partitioner>> partitioners = new ConcurrentHashMap<>();
    /** Per table, layouts by record schema: a Connect schema, or the Avro writer schema of passed-through datums. */
    private final Map<String, Map<Object, TableLayout>> byTable = new ConcurrentHashMap<>();

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
                .computeIfAbsent(valueSchema, s -> build(table, valueSchema));
    }

    /** The layout of Avro datums of {@code writer} passed through into {@code table}. */
    public TableLayout passthroughLayoutFor(String table, Schema writer) {
        return byTable.computeIfAbsent(table, t -> new ConcurrentHashMap<>())
                .computeIfAbsent(writer, s -> buildPassthrough(table, writer));
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

    /**
     * The partitioners are bound twice: first to every field they could read, to learn which ones they do read; then
     * to just those, which are all that is decoded of each datum.
     */
    private TableLayout buildPassthrough(String table, Schema writer) {
        try {
            List<Partitioner> tablePartitioners = partitioners.computeIfAbsent(table, partitionersFor);
            org.apache.kafka.connect.data.Schema readable = DatumFields.readableFields(writer);
            PartitionScheme discovered = PartitionScheme.bind(tablePartitioners, readable);
            Set<String> read = discovered.fieldsRead();
            DatumFields fields = DatumFields.of(writer, read != null ? read
                    : readable.fields().stream().map(org.apache.kafka.connect.data.Field::name).toList());
            PartitionScheme scheme = PartitionScheme.bind(tablePartitioners, fields.connectSchema());
            scheme.requireNoFieldNamedLikeAColumn(writer.getFields().stream().map(Schema.Field::name).toList());
            Schema tableSchema = withoutFields(writer, scheme.fieldsAsColumns());
            admission.admit(table, tableSchema, scheme.spec());
            return TableLayout.passthrough(table, writer, tableSchema, scheme, fields);
        } catch (DataException e) {
            return TableLayout.rejected(table, e);
        } catch (IllegalArgumentException e) {
            // a type Hive has no column for, found when the table's columns are derived (a union of two types...)
            return TableLayout.rejected(table, new DataException("Table " + table + " cannot hold records of writer "
                    + "schema " + writer.getFullName() + ": " + e.getMessage() + " Change the producers' schema, or "
                    + "send these records to another sink."));
        }
    }

    /** {@code writer} without the fields that are partition columns: the table's columns. */
    private static Schema withoutFields(Schema writer, Set<String> dropped) {
        if (dropped.isEmpty()) {
            return writer;
        }
        List<Schema.Field> kept = new ArrayList<>();
        for (Schema.Field field : writer.getFields()) {
            if (!dropped.contains(field.name())) {
                kept.add(new Schema.Field(field, field.schema()));
            }
        }
        Schema columns = Schema.createRecord(writer.getName(), writer.getDoc(), writer.getNamespace(), false, kept);
        writer.getObjectProps().forEach(columns::addProp);
        return columns;
    }
}
