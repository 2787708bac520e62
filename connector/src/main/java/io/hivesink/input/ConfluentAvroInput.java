package io.hivesink.input;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

import org.apache.avro.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.avro.datum.DatumFields;

/**
 * Values that are Avro datums framed by Confluent's serializer, handed over as bytes by {@code ByteArrayConverter}
 * ({@code input.format=confluent-avro}): the frame is read and the writer schema fetched (once per id) on the task
 * thread, so that a registry outage stops the record before it is taken, and Connect delivers it again.
 */
public final class ConfluentAvroInput implements RecordInput {

    private final IntFunction<Schema> schemas;
    private final String routeField;
    private final Map<Schema, DatumFields> routeFieldsBySchema = new ConcurrentHashMap<>();

    /**
     * @param schemas    the writer schema of an id ({@link SchemaRegistryClient#schemaById}), cached by the caller
     * @param routeField the field that routes records to tables ({@code route.field}), or null when routing by topic
     */
    public ConfluentAvroInput(IntFunction<Schema> schemas, String routeField) {
        this.schemas = schemas;
        this.routeField = routeField;
    }

    /** The writer schema; a registry failure that is not the record's fault says which record waits for it. */
    private Schema writerSchema(SinkRecord record, int schemaId) {
        try {
            return schemas.apply(schemaId);
        } catch (DataException e) {
            throw e; // the record's own problem: reported with the record, like any bad record
        } catch (RetriableException e) {
            throw new RetriableException(where(record, schemaId) + e.getMessage(), e);
        } catch (ConnectException e) {
            throw new ConnectException(where(record, schemaId) + e.getMessage(), e);
        }
    }

    private static String where(SinkRecord record, int schemaId) {
        return RecordInput.describe(record) + " schema id=" + schemaId + ": ";
    }

    @Override
    public FramedDatum valueOf(SinkRecord record) {
        Object value = record.value();
        if (value == null) {
            throw ConnectInput.tombstone();
        }
        if (!(value instanceof byte[] bytes)) {
            throw new DataException("the record value is a " + value.getClass().getName() + ", not bytes: with "
                    + "input.format=confluent-avro the value converter must be "
                    + "org.apache.kafka.connect.converters.ByteArrayConverter, which hands the serialized bytes over "
                    + "as they are. With any other converter set input.format=connect.");
        }
        ConfluentFrame frame = ConfluentFrame.of(bytes);
        Schema writer = writerSchema(record, frame.schemaId());
        if (writer.getType() != Schema.Type.RECORD) {
            throw new DataException("schema id " + frame.schemaId() + " is a " + writer.getType() + ", not a record; "
                    + "each record must be a structure whose fields become table columns.");
        }
        if (routeField == null) {
            return new FramedDatum(bytes, frame, writer, null);
        }
        // The encoder reads the whole datum later, on the pool: here only as far as the route field.
        DatumFields fields = routeFieldsBySchema.computeIfAbsent(writer,
                w -> DatumFields.peek(w, List.of(routeField)));
        return new FramedDatum(bytes, frame, writer, fields.read(bytes, frame.offset(), frame.length()));
    }
}
