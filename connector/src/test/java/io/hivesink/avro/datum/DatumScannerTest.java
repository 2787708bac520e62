package io.hivesink.avro.datum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
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
        new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
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

    static final Schema PRICES = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Price\",\"fields\":["
            + "{\"name\":\"amount\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":5,"
            + "\"scale\":2}},"
            + "{\"name\":\"wide\",\"type\":{\"type\":\"fixed\",\"name\":\"Wide\",\"size\":16,"
            + "\"logicalType\":\"decimal\",\"precision\":38,\"scale\":0}}]}");

    /** A Price datum: the unscaled values as the decimal bytes and the 16-byte fixed (sign-extended). */
    static byte[] price(long amountUnscaled, BigInteger wideUnscaled) throws IOException {
        GenericRecord record = new GenericData.Record(PRICES);
        record.put("amount", ByteBuffer.wrap(BigInteger.valueOf(amountUnscaled).toByteArray()));
        byte[] wide = wideUnscaled.toByteArray();
        byte[] fixed = new byte[16];
        Arrays.fill(fixed, wideUnscaled.signum() < 0 ? (byte) -1 : 0);
        System.arraycopy(wide, 0, fixed, 16 - wide.length, wide.length);
        record.put("wide", new GenericData.Fixed(PRICES.getField("wide").schema(), fixed));
        return encode(record, false);
    }

    @Test
    void aDecimalWithMoreDigitsThanItsPrecisionIsRefusedSinceHiveWouldReadNull() throws IOException {
        DatumScanner scanner = DatumScanner.of(PRICES);
        BigInteger max38 = BigInteger.TEN.pow(38).subtract(BigInteger.ONE);
        for (long amount : new long[] {0, 99_999, -99_999, 12_345}) {
            byte[] datum = price(amount, max38);
            scanner.scan(datum, 0, datum.length, null); // 999.99 and -999.99 fit decimal(5,2)
            byte[] negative = price(amount, max38.negate());
            scanner.scan(negative, 0, negative.length, null);
        }
        byte[] tooLarge = price(100_000, BigInteger.ONE);
        DataException e = assertThrows(DataException.class, () -> scanner.scan(tooLarge, 0, tooLarge.length, null));
        assertTrue(e.getMessage().contains("Decimal amount = 1000.00 has more digits than its type decimal(5,2)"),
                e.getMessage());
        byte[] tooSmall = price(-100_000, BigInteger.ONE);
        assertThrows(DataException.class, () -> scanner.scan(tooSmall, 0, tooSmall.length, null));
        byte[] wideTooLarge = price(1, BigInteger.TEN.pow(38));
        DataException wide = assertThrows(DataException.class,
                () -> scanner.scan(wideTooLarge, 0, wideTooLarge.length, null));
        assertTrue(wide.getMessage().contains("Decimal wide = 1" + "0".repeat(38)), wide.getMessage());
    }

    @Test
    void aDateOrTimestampOutsideTheYearsHiveReadsIsRefused() throws IOException {
        Schema schema = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"When\",\"fields\":["
                + "{\"name\":\"at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
                + "{\"name\":\"micros\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}},"
                + "{\"name\":\"on\",\"type\":[\"null\",{\"type\":\"int\",\"logicalType\":\"date\"}]}]}");
        DatumScanner scanner = DatumScanner.of(schema);
        long last = 253_402_300_799_999L;
        scanWhole(scanner, when(schema, last, last * 1_000 + 999, 2_932_896));
        scanWhole(scanner, when(schema, -62_135_596_800_000L, 0, -719_162));
        DataException millis = assertThrows(DataException.class,
                () -> scanWhole(scanner, when(schema, last + 1, 0, 0)));
        assertTrue(millis.getMessage().contains("timestamp-millis at = +10000-01-01T00:00:00Z is outside the years "
                + "0001 to 9999 that Hive reads"), millis.getMessage());
        assertThrows(DataException.class, () -> scanWhole(scanner, when(schema, 0, (last + 1) * 1_000, 0)));
        DataException date = assertThrows(DataException.class,
                () -> scanWhole(scanner, when(schema, 0, 0, 2_932_897)));
        assertTrue(date.getMessage().contains("date on = +10000-01-01"), date.getMessage());
    }

    private static void scanWhole(DatumScanner scanner, byte[] datum) {
        scanner.scan(datum, 0, datum.length, null);
    }

    /** A When datum. */
    private static byte[] when(Schema schema, long at, long micros, int on) throws IOException {
        GenericRecord record = new GenericData.Record(schema);
        record.put("at", at);
        record.put("micros", micros);
        record.put("on", on);
        return encode(record, false);
    }
}
