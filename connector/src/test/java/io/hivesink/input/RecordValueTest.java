package io.hivesink.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.avro.SchemaBuilder;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class RecordValueTest {

    private static final Schema ORDER = org.apache.kafka.connect.data.SchemaBuilder.struct().name("Order")
            .field("region", Schema.STRING_SCHEMA).build();
    private static final org.apache.avro.Schema WRITER = SchemaBuilder.record("Order").fields()
            .requiredString("region").endRecord();

    /** Says which method a value was handed to, and with what. */
    private static final RecordValue.Handler<String> KIND = new RecordValue.Handler<>() {
        @Override
        public String connect(Struct value) {
            return "connect " + value.getString("region");
        }

        @Override
        public String framed(FramedDatum datum) {
            return "framed " + datum.schemaId();
        }
    };

    private static SinkRecord record(Schema schema, Object value) {
        return new SinkRecord("orders", 2, null, null, schema, value, 41);
    }

    @Test
    void connectDataIsAConnectValueRoutedByItsStruct() {
        Struct order = new Struct(ORDER).put("region", "eu");
        RecordValue value = ConnectInput.INSTANCE.read(record(ORDER, order));
        assertSame(order, value.routeFields());
        assertEquals("connect eu", value.accept(KIND));
        assertEquals("Record topic=orders partition=2 offset=41", value.describe(record(ORDER, order)));
    }

    @Test
    void aFramedDatumIsHandedOverAsItIsAndNamedWithItsSchemaId() {
        byte[] bytes = ConfluentFrame.frame(7, new byte[] {4, 'e', 'u'});
        RecordValue value = new ConfluentAvroInput(id -> WRITER, "region").read(record(null, bytes));
        assertEquals("eu", value.routeFields().getString("region"));
        assertEquals("framed 7", value.accept(KIND));
        assertEquals("Record topic=orders partition=2 offset=41 schema id=7", value.describe(record(null, bytes)));
    }

    @Test
    void aValueThatCannotBeStoredIsKeptInItsPlaceAndThrowsWhyWhenUsed() {
        RecordValue tombstone = ConnectInput.INSTANCE.read(record(ORDER, null));
        DataException routed = assertThrows(DataException.class, tombstone::routeFields);
        assertTrue(routed.getMessage().contains("tombstone"), routed.getMessage());
        DataException handled = assertThrows(DataException.class, () -> tombstone.accept(KIND));
        assertSame(routed, handled);

        RecordValue json = new ConfluentAvroInput(id -> WRITER, null).read(record(null, "{}".getBytes(
                java.nio.charset.StandardCharsets.UTF_8)));
        DataException notFramed = assertThrows(DataException.class, () -> json.accept(KIND));
        assertTrue(notFramed.getMessage().contains("JSON"), notFramed.getMessage());
    }
}
