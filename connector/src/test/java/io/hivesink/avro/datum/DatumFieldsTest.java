package io.hivesink.avro.datum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

class DatumFieldsTest {

    static final Schema WRITER = new Schema.Parser().parse(
            "{\"type\":\"record\",\"name\":\"Click\",\"namespace\":\"web\","
            + "\"fields\":["
            + "{\"name\":\"payload\",\"type\":{\"type\":\"record\",\"name\":\"P\",\"fields\":[{\"name\":\"a\",\"type\":"
            + "{\"type\":\"array\",\"items\":\"string\"}},"
            + "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"long\"}}]}},"
            + "{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"Kind\",\"symbols\":[\"click\",\"view\"]}},"
            + "{\"name\":\"blob\",\"type\":\"bytes\"},"
            + "{\"name\":\"at\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}]},"
            + "{\"name\":\"day\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}},"
            + "{\"name\":\"region\",\"type\":\"string\"}]}");

    static byte[] datum(String kind, Long at, String region) throws IOException {
        GenericRecord payload = new GenericData.Record(WRITER.getField("payload").schema());
        payload.put("a", Arrays.asList("x", "y", "z"));
        payload.put("m", Map.of("k", 1L));
        GenericRecord record = new GenericData.Record(WRITER);
        record.put("payload", payload);
        record.put("kind", new GenericData.EnumSymbol(WRITER.getField("kind").schema(), kind));
        record.put("blob", java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}));
        record.put("at", at);
        record.put("day", 20_414);
        record.put("region", region);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[] {9, 9}); // the datum need not start the array
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(WRITER).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    @Test
    void readsTheChosenFieldsAndSkipsTheRest() throws IOException {
        DatumFields fields = DatumFields.of(WRITER, List.of("region", "kind", "at", "day"));
        byte[] value = datum("view", 1_795_390_200_000L, "eu");
        Struct struct = fields.read(value, 2, value.length - 2);
        assertEquals("eu", struct.get("region"));
        assertEquals("view", struct.get("kind"));
        assertEquals(new java.util.Date(1_795_390_200_000L), struct.get("at"));
        assertEquals(new java.util.Date(20_414L * 86_400_000L), struct.get("day"));
        assertEquals(org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME,
                fields.connectSchema().field("at").schema().name());
        assertTrue(fields.connectSchema().field("at").schema().isOptional());

        byte[] noTime = datum("click", null, "us");
        assertNull(fields.read(noTime, 2, noTime.length - 2).get("at"));
    }

    @Test
    void badFieldsAndBadDatumsAreClearErrors() throws IOException {
        DataException missing = assertThrows(DataException.class, () -> DatumFields.of(WRITER, List.of("country")));
        assertTrue(missing.getMessage().contains("'country'") && missing.getMessage().contains("region"),
                missing.getMessage());
        DataException nested = assertThrows(DataException.class, () -> DatumFields.of(WRITER, List.of("payload")));
        assertTrue(nested.getMessage().contains("'payload'"), nested.getMessage());

        DatumFields fields = DatumFields.of(WRITER, List.of("region"));
        byte[] value = datum("view", 1L, "eu");
        DataException truncated = assertThrows(DataException.class, () -> fields.read(value, 2, value.length - 5));
        assertTrue(truncated.getMessage().contains("truncated"), truncated.getMessage());

        // peek walks only as far as its fields: the cut tail is left to the whole read that follows it
        assertEquals("view", DatumFields.peek(WRITER, List.of("kind")).read(value, 2, value.length - 5).get("kind"));
        assertThrows(DataException.class, () -> DatumFields.of(WRITER, List.of("kind")).read(value, 2,
                value.length - 5));
        DataException cutBefore = assertThrows(DataException.class,
                () -> DatumFields.peek(WRITER, List.of("region")).read(value, 2, value.length - 5));
        assertTrue(cutBefore.getMessage().contains("truncated"), cutBefore.getMessage());
    }
}
