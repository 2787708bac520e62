package io.hivesink.avro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

class DatumScannerTest {

    /** Every Avro type, a recursive record, unions and blocked arrays and maps. */
    static final Schema TREE = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Node\",\"fields\":["
            + "{\"name\":\"label\",\"type\":\"string\"},"
            + "{\"name\":\"flag\",\"type\":\"boolean\"},"
            + "{\"name\":\"n\",\"type\":\"int\"},{\"name\":\"big\",\"type\":\"long\"},"
            + "{\"name\":\"f\",\"type\":\"float\"},{\"name\":\"d\",\"type\":\"double\"},"
            + "{\"name\":\"raw\",\"type\":\"bytes\"},"
            + "{\"name\":\"hash\",\"type\":{\"type\":\"fixed\",\"name\":\"Hash\",\"size\":4}},"
            + "{\"name\":\"color\",\"type\":{\"type\":\"enum\",\"name\":\"Color\",\"symbols\":[\"RED\",\"GREEN\"]}},"
            + "{\"name\":\"nothing\",\"type\":\"null\"},"
            + "{\"name\":\"maybe\",\"type\":[\"null\",\"string\",\"long\"]},"
            + "{\"name\":\"attrs\",\"type\":{\"type\":\"map\",\"values\":\"double\"}},"
            + "{\"name\":\"nulls\",\"type\":{\"type\":\"array\",\"items\":\"null\"}},"
            + "{\"name\":\"children\",\"type\":{\"type\":\"array\",\"items\":\"Node\"}}]}");

    static GenericRecord tree(Random random, int depth) {
        GenericRecord node = new GenericData.Record(TREE);
        node.put("label", "n" + random.nextInt(1000));
        node.put("flag", random.nextBoolean());
        node.put("n", random.nextInt());
        node.put("big", random.nextLong());
        node.put("f", random.nextFloat());
        node.put("d", random.nextDouble());
        byte[] raw = new byte[random.nextInt(20)];
        random.nextBytes(raw);
        node.put("raw", ByteBuffer.wrap(raw));
        node.put("hash", new GenericData.Fixed(TREE.getField("hash").schema(), new byte[] {1, 2, 3, 4}));
        node.put("color", new GenericData.EnumSymbol(TREE.getField("color").schema(), random.nextBoolean() ? "RED"
                : "GREEN"));
        node.put("nothing", null);
        node.put("maybe", switch (random.nextInt(3)) {
            case 0 -> null;
            case 1 -> "text";
            default -> random.nextLong();
        });
        Map<String, Double> attrs = new HashMap<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            attrs.put("k" + i, random.nextDouble());
        }
        node.put("attrs", attrs);
        List<Object> nulls = new ArrayList<>();
        for (int i = random.nextInt(3); i > 0; i--) {
            nulls.add(null);
        }
        node.put("nulls", nulls);
        List<GenericRecord> children = new ArrayList<>();
        for (int i = depth > 0 ? random.nextInt(3) : 0; i > 0; i--) {
            children.add(tree(random, depth - 1));
        }
        node.put("children", children);
        return node;
    }

    /** Encoded plainly, or with a blocking encoder (negative block counts followed by block sizes). */
    static byte[] encode(GenericRecord record, boolean blocking) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = blocking ? EncoderFactory.get().blockingBinaryEncoder(out, null)
                : EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(TREE).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    @Test
    void wholeDatumsPassAndEveryTruncationIsCaught() throws IOException {
        DatumScanner scanner = DatumScanner.of(TREE);
        Random random = new Random(42);
        int cuts = 0;
        for (int i = 0; i < 40; i++) {
            byte[] datum = encode(tree(random, 3), i % 2 == 1);
            int[] starts = new int[scanner.fieldCount()];
            scanner.scan(datum, 0, datum.length, starts);
            assertEquals(0, starts[0]);
            for (int length = 0; length < datum.length; length++) {
                int cut = length;
                DataException e = assertThrows(DataException.class, () -> scanner.scan(datum, 0, cut, null),
                        "a datum cut to " + cut + " of " + datum.length + " bytes");
                assertTrue(e.getMessage().contains("truncated") || e.getMessage().contains("index")
                        || e.getMessage().contains("negative") || e.getMessage().contains("block"), e.getMessage());
                cuts++;
            }
        }
        assertTrue(cuts > 1000, "cuts tried: " + cuts);
    }

    @Test
    void leftOverBytesAndOutOfRangeIndexesAreCaught() throws IOException {
        DatumScanner scanner = DatumScanner.of(TREE);
        byte[] datum = encode(tree(new Random(7), 1), false);
        byte[] padded = java.util.Arrays.copyOf(datum, datum.length + 3);
        DataException extra = assertThrows(DataException.class, () -> scanner.scan(padded, 0, padded.length, null));
        assertTrue(extra.getMessage().contains("3 bytes left over"), extra.getMessage());

        Schema flat = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"E\",\"fields\":[{\"name\":\"c\","
                + "\"type\":{\"type\":\"enum\",\"name\":\"C\",\"symbols\":[\"A\",\"B\"]}},{\"name\":\"b\",\"type\":"
                + "\"boolean\"}]}");
        DatumScanner enums = DatumScanner.of(flat);
        enums.scan(new byte[] {2, 1}, 0, 2, null); // symbol 1 (zig-zag 2), true
        DataException symbol = assertThrows(DataException.class, () -> enums.scan(new byte[] {4, 1}, 0, 2, null));
        assertTrue(symbol.getMessage().contains("index 2") && symbol.getMessage().contains("2 symbols"),
                symbol.getMessage());
        DataException bool = assertThrows(DataException.class, () -> enums.scan(new byte[] {0, 7}, 0, 2, null));
        assertTrue(bool.getMessage().contains("boolean"), bool.getMessage());
        DataException notRecord = assertThrows(DataException.class,
                () -> DatumScanner.of(Schema.create(Schema.Type.STRING)));
        assertTrue(notRecord.getMessage().contains("not a record"), notRecord.getMessage());
    }
}
