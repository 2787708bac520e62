package io.hivesink.batch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import org.apache.avro.Schema;
import org.apache.kafka.connect.errors.DataException;

import io.hivesink.avro.datum.DatumFields;
import io.hivesink.avro.encode.ConnectSchemaMapper;
import io.hivesink.avro.encode.StructEncoder;
import io.hivesink.route.PartitionScheme;
import io.hivesink.route.Partitioner;

/**
 * One {@link TableLayout} per (table, record schema), shared by the encoding threads. A look-up compares schemas
 * deeply, so callers keep the last layout they used and ask again only when the schema object changes. Why a table
 * cannot take a schema is kept too, so that its records fail fast without asking the metastore again.
 */
public final class TableLayouts {

    private final String namespace;
    private final Function<String, List<Partitioner>> partitionersFor;
    private final TableAdmission admission;
    private final Map<String, List<Partitioner>> partitioners = new ConcurrentHashMap<>();
    /** Per table, the layouts of Connect Structs by their schema. */
    private final Map<String, Map<org.apache.kafka.connect.data.Schema, Admitted<EncodingLayout>>> structs =
            new ConcurrentHashMap<>();
    /** Per table, the layouts of passed-through Avro datums by their writer schema. */
    private final Map<String, Map<Schema, Admitted<PassthroughLayout>>> datums = new ConcurrentHashMap<>();

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

    /**
     * The layout of Connect Structs of {@code valueSchema} in {@code table}.
     *
     * @throws DataException if the table cannot take records of this schema, saying why
     */
    public EncodingLayout layoutFor(String table, org.apache.kafka.connect.data.Schema valueSchema) {
        return structs.computeIfAbsent(table, t -> new ConcurrentHashMap<>())
                .computeIfAbsent(valueSchema, s -> admit(() -> build(table, valueSchema))).get();
    }

    /**
     * The layout of Avro datums of {@code writer} passed through into {@code table}.
     *
     * @throws DataException if the table cannot take records of this schema, saying why
     */
    public PassthroughLayout passthroughLayoutFor(String table, Schema writer) {
        return datums.computeIfAbsent(table, t -> new ConcurrentHashMap<>())
                .computeIfAbsent(writer, s -> admit(() -> buildPassthrough(table, writer))).get();
    }

    private static <L extends TableLayout> Admitted<L> admit(Supplier<L> build) {
        try {
            return new Admitted<>(build.get(), null);
        } catch (DataException e) {
            return new Admitted<>(null, e);
        }
    }

    private EncodingLayout build(String table, org.apache.kafka.connect.data.Schema valueSchema) {
        PartitionScheme scheme = PartitionScheme.bind(partitioners.computeIfAbsent(table, partitionersFor),
                valueSchema);
        Schema avro = ConnectSchemaMapper.toAvro(valueSchema, namespace, table, scheme.fieldsAsColumns());
        admission.admit(table, avro, scheme.spec());
        return new EncodingLayout(table, avro, scheme, StructEncoder.compile(valueSchema, avro));
    }

    /**
     * The partitioners are bound twice: first to every field they could read, to learn which ones they do read; then
     * to just those, which are all that is decoded of each datum.
     */
    private PassthroughLayout buildPassthrough(String table, Schema writer) {
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
            return new PassthroughLayout(table, writer, tableSchema, scheme, fields);
        } catch (IllegalArgumentException e) {
            // a type Hive has no column for, found when the table's columns are derived (a union of two types...)
            throw new DataException("Table " + table + " cannot hold records of writer "
                    + "schema " + writer.getFullName() + ": " + e.getMessage() + " Change the producers' schema, or "
                    + "send these records to another sink.");
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

    /** A layout, or why the table cannot take the schema; {@link #get} throws the latter afresh for each record. */
    private record Admitted<L extends TableLayout>(L layout, DataException rejection) {
        L get() {
            if (rejection != null) {
                throw new DataException(rejection.getMessage(), rejection);
            }
            return layout;
        }
    }
}
