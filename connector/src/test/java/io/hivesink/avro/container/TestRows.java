package io.hivesink.avro.container;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.hivesink.avro.datum.EncodedDatums;

/**
 * Seeded test records of a schema with every Avro type that survives a trip through JSON (no logical types), their
 * encoded datums, and a canonical JSON form to compare what a reader gives back.
 */
final class TestRows {

    static final Schema SCHEMA = new Schema.Parser().parse("""
            {"type": "record", "name": "Row", "namespace": "test.container", "fields": [
              {"name": "id", "type": "long"},
              {"name": "name", "type": "string"},
              {"name": "score", "type": "double"},
              {"name": "ratio", "type": "float"},
              {"name": "count", "type": "int"},
              {"name": "flag", "type": "boolean"},
              {"name": "note", "type": ["null", "string"]},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "attrs", "type": {"type": "map", "values": "long"}},
              {"name": "payload", "type": "bytes"},
              {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C"]}},
              {"name": "code", "type": {"type": "fixed", "name": "Code", "size": 4}},
              {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [
                {"name": "x", "type": "int"},
                {"name": "y", "type": ["null", "double"]}]}}
            ]}""");

    private static final String[] WORDS = {"", "a", "ask", "bid", "größe", "日本語", "emoji 😀", "tab\tnew\nline",
        "quote\"back\\slash", "hive-sink", "zstandard"};
    private static final ObjectMapper JSON = new ObjectMapper();

    final List<GenericRecord> records = new ArrayList<>();
    final EncodedDatums datums = new EncodedDatums();

    /**
     * @param count    records
     * @param bigEvery every how many records one carries a payload of {@code bigBytes} (0: none)
     */
    TestRows(long seed, int count, int bigEvery, int bigBytes) {
        SplittableRandom random = new SplittableRandom(seed);
        Schema inner = SCHEMA.getField("inner").schema();
        Schema kind = SCHEMA.getField("kind").schema();
        Schema code = SCHEMA.getField("code").schema();
        GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(SCHEMA);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = null;
        for (int i = 0; i < count; i++) {
            GenericRecord row = new GenericData.Record(SCHEMA);
            row.put("id", random.nextBoolean() ? (long) i : random.nextLong());
            row.put("name", word(random) + i);
            row.put("score", random.nextInt(10) == 0 ? -0.0 : random.nextDouble() * 1e6 - 5e5);
            row.put("ratio", (float) random.nextDouble());
            row.put("count", random.nextInt());
            row.put("flag", random.nextBoolean());
            row.put("note", random.nextInt(5) == 0 ? null : word(random));
            List<String> tags = new ArrayList<>();
            for (int t = random.nextInt(4); t > 0; t--) {
                tags.add(word(random));
            }
            row.put("tags", tags);
            Map<String, Long> attrs = new LinkedHashMap<>();
            for (int a = random.nextInt(4); a > 0; a--) {
                attrs.put("k" + random.nextInt(100), random.nextLong(-1000, 1000));
            }
            row.put("attrs", attrs);
            boolean big = bigEvery > 0 && i % bigEvery == bigEvery - 1;
            byte[] payload = new byte[big ? bigBytes : random.nextInt(120)];
            for (int b = 0; b < payload.length; b++) {
                payload[b] = (byte) (random.nextInt(8) == 0 ? random.nextInt(256) : 'a' + (b % 7));
            }
            row.put("payload", ByteBuffer.wrap(payload));
            row.put("kind", new GenericData.EnumSymbol(kind, kind.getEnumSymbols().get(random.nextInt(3))));
            byte[] fixed = new byte[4];
            for (int b = 0; b < 4; b++) {
                fixed[b] = (byte) random.nextInt(256);
            }
            row.put("code", new GenericData.Fixed(code, fixed));
            GenericRecord nested = new GenericData.Record(inner);
            nested.put("x", random.nextInt(1000));
            nested.put("y", random.nextBoolean() ? null : random.nextDouble());
            row.put("inner", nested);
            records.add(row);

            bytes.reset();
            encoder = EncoderFactory.get().binaryEncoder(bytes, encoder);
            try {
                writer.write(row, encoder);
                encoder.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            byte[] encoded = bytes.toByteArray();
            datums.add(encoded, 0, encoded.length);
        }
    }

    private static String word(SplittableRandom random) {
        return WORDS[random.nextInt(WORDS.length)];
    }

    /** The records as canonical JSON nodes (bytes and fixed as hex, map keys unordered, numbers by value). */
    List<JsonNode> json() {
        List<JsonNode> result = new ArrayList<>();
        for (GenericRecord record : records) {
            result.add(json(record));
        }
        return result;
    }

    /** One Avro generic value as a canonical JSON node: the form the Python reader prints too. */
    static JsonNode json(Object value) {
        return normalize(toNode(value));
    }

    /** Parses a JSON text into the same canonical form. */
    static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode normalize(JsonNode node) {
        try { // numbers take the node type their text parses to, whatever type they were built with
            return JSON.readTree(JSON.writeValueAsString(node));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode toNode(Object value) {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        if (value == null) {
            return nodes.nullNode();
        } else if (value instanceof GenericRecord record) {
            ObjectNode object = nodes.objectNode();
            for (Schema.Field field : record.getSchema().getFields()) {
                object.set(field.name(), toNode(record.get(field.pos())));
            }
            return object;
        } else if (value instanceof Map<?, ?> map) {
            ObjectNode object = nodes.objectNode();
            map.forEach((k, v) -> object.set(k.toString(), toNode(v)));
            return object;
        } else if (value instanceof List<?> list) {
            ArrayNode array = nodes.arrayNode();
            list.forEach(item -> array.add(toNode(item)));
            return array;
        } else if (value instanceof ByteBuffer buffer) {
            ByteBuffer copy = buffer.duplicate();
            byte[] data = new byte[copy.remaining()];
            copy.get(data);
            return nodes.textNode(HexFormat.of().formatHex(data));
        } else if (value instanceof GenericFixed fixed) {
            return nodes.textNode(HexFormat.of().formatHex(fixed.bytes()));
        } else if (value instanceof GenericEnumSymbol<?> || value instanceof CharSequence) {
            return nodes.textNode(value.toString());
        } else if (value instanceof Long l) {
            return nodes.numberNode(l);
        } else if (value instanceof Integer n) {
            return nodes.numberNode(n);
        } else if (value instanceof Float f) {
            return nodes.numberNode((double) f);
        } else if (value instanceof Double d) {
            return nodes.numberNode(d);
        } else if (value instanceof Boolean b) {
            return nodes.booleanNode(b);
        }
        throw new IllegalArgumentException("No JSON form for " + value.getClass());
    }
}
