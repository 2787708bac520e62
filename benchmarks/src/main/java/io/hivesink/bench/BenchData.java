package io.hivesink.bench;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.avro.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * The benchmark data sets: the shared benchmark schemas as Connect schemas, and seeded, realistic values in fresh
 * objects per record (as a converter would produce them): symbols from 500 tickers, uniform prices, sizes and
 * volumes, strings from a vocabulary of 1,000 random tokens of 4-16 characters, nullable columns null one time in 5.
 */
public final class BenchData {

    public enum DataSet {
        STOCKQUOTE("stockquote.avsc"), WIDE300("wide300.avsc");

        final String resource;

        DataSet(String resource) {
            this.resource = resource;
        }
    }

    private BenchData() {
    }

    public static Schema avroSchema(DataSet set) {
        try (InputStream in = BenchData.class.getResourceAsStream("/schemas/" + set.resource)) {
            return new Schema.Parser().parse(in);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The Connect schema a converter would give records of this Avro schema (the types the benchmark uses). */
    public static org.apache.kafka.connect.data.Schema connectSchema(Schema avro) {
        SchemaBuilder builder = SchemaBuilder.struct().name(avro.getFullName());
        for (Schema.Field field : avro.getFields()) {
            Schema type = field.schema();
            boolean optional = type.getType() == Schema.Type.UNION;
            if (optional) {
                if (type.getTypes().size() != 2 || type.getTypes().get(0).getType() != Schema.Type.NULL) {
                    throw new IllegalArgumentException("benchmark unions are [null, T]: " + field);
                }
                type = type.getTypes().get(1);
            }
            SchemaBuilder fieldSchema = switch (type.getType()) {
                case LONG -> SchemaBuilder.int64();
                case INT -> SchemaBuilder.int32();
                case DOUBLE -> SchemaBuilder.float64();
                case STRING -> SchemaBuilder.string();
                default -> throw new IllegalArgumentException("benchmark type " + type);
            };
            builder.field(field.name(), optional ? fieldSchema.optional().build() : fieldSchema.build());
        }
        return builder.build();
    }

    public static List<Struct> records(org.apache.kafka.connect.data.Schema schema, int count, long seed) {
        Random random = new Random(seed);
        String[] vocabulary = tokens(random, 1_000);
        String[] tickers = new String[500];
        for (int i = 0; i < tickers.length; i++) {
            tickers[i] = vocabulary[i].toUpperCase(java.util.Locale.ROOT);
        }
        List<org.apache.kafka.connect.data.Field> fields = schema.fields();
        List<Struct> records = new ArrayList<>(count);
        long baseTime = 1_763_800_000_000L;
        for (int r = 0; r < count; r++) {
            Struct struct = new Struct(schema);
            for (org.apache.kafka.connect.data.Field field : fields) {
                if (field.schema().isOptional() && random.nextInt(5) == 0) {
                    continue;
                }
                Object value = switch (field.schema().type()) {
                    case INT64 -> field.name().toLowerCase(java.util.Locale.ROOT).contains("time")
                            ? baseTime + r * 7L + random.nextInt(5) : random.nextLong() % 10_000_000_000L;
                    case INT32 -> random.nextInt(100_000);
                    case FLOAT64 -> random.nextDouble() * 1_000;
                    case STRING -> field.name().equals("symbol") ? tickers[random.nextInt(tickers.length)]
                            : vocabulary[random.nextInt(vocabulary.length)];
                    default -> throw new IllegalStateException();
                };
                struct.put(field, value);
            }
            records.add(struct);
        }
        return records;
    }

    private static String[] tokens(Random random, int count) {
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        String[] tokens = new String[count];
        for (int i = 0; i < count; i++) {
            int length = 4 + random.nextInt(13);
            StringBuilder token = new StringBuilder(length);
            for (int c = 0; c < length; c++) {
                token.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            tokens[i] = token.toString();
        }
        return tokens;
    }
}
