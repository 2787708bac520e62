package io.hivesink.metastore;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

class SchemaEvolutionTest {

    private static Schema parse(String fields) {
        return new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"t\",\"namespace\":\"db\",\"fields\":["
                + fields + "]}");
    }

    private static final Schema V1 = parse("{\"name\":\"id\",\"type\":\"long\"},"
            + "{\"name\":\"qty\",\"type\":\"int\"},"
            + "{\"name\":\"price\",\"type\":\"float\"},"
            + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}");

    @Test
    void theSameSchemaNeedsNothing() {
        assertInstanceOf(SchemaEvolution.AlreadyReadable.class, SchemaEvolution.evolve(V1, parse(
                "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"qty\",\"type\":\"int\"},"
                        + "{\"name\":\"price\",\"type\":\"float\"},"
                        + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}")));
    }

    @Test
    void compatibleChangesEvolveTheTableKeepingItsColumnOrder() throws IOException {
        // the records moved note first, widened qty and price, made id optional and added two fields
        Schema v2 = parse("{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null},"
                + "{\"name\":\"id\",\"type\":[\"null\",\"long\"],\"default\":null},"
                + "{\"name\":\"qty\",\"type\":\"long\"},"
                + "{\"name\":\"price\",\"type\":\"double\"},"
                + "{\"name\":\"channel\",\"type\":[\"null\",\"string\"],\"default\":null},"
                + "{\"name\":\"status\",\"type\":\"string\",\"default\":\"new\"}");
        SchemaEvolution.Evolve evolve = assertInstanceOf(SchemaEvolution.Evolve.class,
                SchemaEvolution.evolve(V1, v2));
        Schema table = evolve.schema();
        assertEquals(List.of("id", "qty", "price", "note", "channel", "status"),
                table.getFields().stream().map(Schema.Field::name).toList());
        assertEquals("[\"null\",\"long\"]", table.getField("id").schema().toString());
        assertEquals("long", table.getField("qty").schema().getType().getName());
        assertEquals("double", table.getField("price").schema().getType().getName());
        assertEquals("new", table.getField("status").defaultVal());
        assertEquals(5, evolve.changes().size(), evolve.changes().toString());

        // old and new data both read through the evolved table schema
        GenericRecord old = new GenericData.Record(V1);
        old.put("id", 1L);
        old.put("qty", 2);
        old.put("price", 1.5f);
        GenericRecord read = roundTrip(old, V1, table);
        assertEquals(2L, read.get("qty"));
        assertEquals(1.5, read.get("price"));
        assertEquals(null, read.get("channel"));
        assertEquals("new", read.get("status").toString());
        GenericRecord fresh = new GenericData.Record(v2);
        fresh.put("qty", 5L);
        fresh.put("price", 2.25);
        fresh.put("channel", "web");
        fresh.put("status", "paid");
        GenericRecord readFresh = roundTrip(fresh, v2, table);
        assertEquals(null, readFresh.get("id"));
        assertEquals("web", readFresh.get("channel").toString());

        // and the older producer, still sending v1, fits the evolved table as it is
        assertInstanceOf(SchemaEvolution.AlreadyReadable.class, SchemaEvolution.evolve(table, V1));
    }

    @Test
    void aColumnTheRecordsNoLongerSendBecomesOptional() {
        Schema dropped = parse("{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"price\",\"type\":\"float\"},"
                + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null}");
        SchemaEvolution.Evolve evolve = assertInstanceOf(SchemaEvolution.Evolve.class,
                SchemaEvolution.evolve(V1, dropped));
        assertEquals("[\"null\",\"int\"]", evolve.schema().getField("qty").schema().toString());
        assertTrue(evolve.changes().get(0).contains("qty"), evolve.changes().toString());
    }

    @Test
    void nestedRecordsArraysMapsAndEnumsEvolveToo() {
        Schema t = parse("{\"name\":\"lines\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\","
                + "\"name\":\"t_lines\",\"fields\":[{\"name\":\"sku\",\"type\":\"string\"}]}}},"
                + "{\"name\":\"tags\",\"type\":{\"type\":\"map\",\"values\":\"int\"}},"
                + "{\"name\":\"state\",\"type\":{\"type\":\"enum\",\"name\":\"t_state\",\"symbols\":[\"A\",\"B\"]}}");
        Schema r = parse("{\"name\":\"lines\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\","
                + "\"name\":\"t_lines\",\"fields\":[{\"name\":\"sku\",\"type\":\"string\"},"
                + "{\"name\":\"qty\",\"type\":[\"null\",\"int\"],\"default\":null}]}}},"
                + "{\"name\":\"tags\",\"type\":{\"type\":\"map\",\"values\":\"long\"}},"
                + "{\"name\":\"state\",\"type\":{\"type\":\"enum\",\"name\":\"t_state\","
                + "\"symbols\":[\"A\",\"B\",\"C\"]}}");
        SchemaEvolution.Evolve evolve = assertInstanceOf(SchemaEvolution.Evolve.class, SchemaEvolution.evolve(t, r));
        Schema merged = evolve.schema();
        assertEquals(2, merged.getField("lines").schema().getElementType().getFields().size());
        assertEquals("long", merged.getField("tags").schema().getValueType().getType().getName());
        assertEquals(List.of("A", "B", "C"), merged.getField("state").schema().getEnumSymbols());
    }

    @Test
    void incompatibleChangesSayWhichColumnAndWhy() {
        SchemaEvolution.Incompatible kind = assertInstanceOf(SchemaEvolution.Incompatible.class,
                SchemaEvolution.evolve(V1, parse("{\"name\":\"id\",\"type\":\"string\"},"
                        + "{\"name\":\"qty\",\"type\":\"int\"},{\"name\":\"price\",\"type\":\"float\"}")));
        assertTrue(kind.reason().contains("column id is long in the table but string in the records"),
                kind.reason());
        SchemaEvolution.Incompatible required = assertInstanceOf(SchemaEvolution.Incompatible.class,
                SchemaEvolution.evolve(V1, parse("{\"name\":\"id\",\"type\":\"long\"},"
                        + "{\"name\":\"qty\",\"type\":\"int\"},{\"name\":\"price\",\"type\":\"float\"},"
                        + "{\"name\":\"region\",\"type\":\"string\"}")));
        assertTrue(required.reason().contains("new column region is required and has no default"),
                required.reason());
        SchemaEvolution.Incompatible narrowed = assertInstanceOf(SchemaEvolution.Incompatible.class,
                SchemaEvolution.evolve(parse("{\"name\":\"d\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}}"),
                        parse("{\"name\":\"d\",\"type\":\"long\"}")));
        assertTrue(narrowed.reason().contains("column d"), narrowed.reason());
    }

    private static GenericRecord roundTrip(GenericRecord record, Schema writer, Schema reader) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        new GenericDatumWriter<GenericRecord>(writer).write(record, encoder);
        encoder.flush();
        return new GenericDatumReader<GenericRecord>(writer, reader)
                .read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
    }
}
