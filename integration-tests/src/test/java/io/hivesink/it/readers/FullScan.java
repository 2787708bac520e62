package io.hivesink.it.readers;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The battery's full scan: every value of every row, each rendered by the engine as text in a form that does not
 * depend on the engine's own formatting (strings and bytes as hex, sizes and first elements of arrays and maps,
 * nested fields by name), and put in one canonical form on both sides before they are compared.
 */
final class FullScan {

    /** How a value is compared: the engine's text and the produced value, each made canonical. */
    private enum Form {
        PLAIN, FLOAT, DOUBLE, DECIMAL, TIMESTAMP, HEX
    }

    /** One rendered value: its label, the engine's expression, and the produced value's canonical text. */
    private record Field(String label, Function<Dialect, String> expression, Form form,
            BiFunction<Integer, String, Object> produced) {
    }

    private static final HexFormat HEX = HexFormat.of().withUpperCase();
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss");

    private static final List<Field> FIELDS = List.of(
            plain("bucket", d -> "bucket"),
            plain("i32", d -> "i32"),
            plain("i64", d -> "i64"),
            new Field("f32", d -> "f32", Form.FLOAT, (id, format) -> signedZero(MatrixRows.value("f32", id), format)),
            new Field("f64", d -> "f64", Form.DOUBLE, (id, format) -> signedZero(MatrixRows.value("f64", id), format)),
            plain("flag", d -> "flag"),
            hex("s", d -> d.hex("s", false)),
            hex("b", d -> d.hex("b", true)),
            field("dec9", d -> d.text("dec9"), Form.DECIMAL),
            field("dec38", d -> d.text("dec38"), Form.DECIMAL),
            plain("day", d -> d.text("day")),
            field("ts", d -> d.text("ts"), Form.TIMESTAMP),
            hex("topCamel", d -> d.hex("topCamel", false)),
            new Field("arr is null", d -> "arr is null", Form.PLAIN, (id, f) -> MatrixRows.value("arr", id) == null),
            new Field("size(arr)", d -> d.size("arr"), Form.PLAIN, (id, f) -> size(MatrixRows.value("arr", id))),
            new Field("arr[0]", d -> d.hex(d.first("arr"), false), Form.HEX, (id, f) -> first("arr", id)),
            new Field("m is null", d -> "m is null", Form.PLAIN, (id, f) -> MatrixRows.value("m", id) == null),
            new Field("size(m)", d -> d.size("m"), Form.PLAIN, (id, f) -> size(MatrixRows.value("m", id))),
            new Field("m['k1']", d -> d.at("m", "k1"), Form.PLAIN, (id, f) -> entry(id, "k1")),
            new Field("m['k2']", d -> d.at("m", "k2"), Form.PLAIN, (id, f) -> entry(id, "k2")),
            new Field("rec is null", d -> "rec is null", Form.PLAIN, (id, f) -> MatrixRows.value("rec", id) == null),
            hex("rec.userId", d -> d.hex("rec.userId", false)),
            plain("rec.UPPER", d -> "rec.UPPER"),
            new Field("rec.Deep is null", d -> "rec.Deep is null", Form.PLAIN,
                    (id, f) -> MatrixRows.value("rec.Deep", id) == null),
            plain("rec.Deep.deepName", d -> "rec.Deep.deepName"),
            hex("rec.Deep.ALLCAPS", d -> d.hex("rec.Deep.ALLCAPS", false)),
            new Field("items is null", d -> "items is null", Form.PLAIN,
                    (id, f) -> MatrixRows.value("items", id) == null),
            new Field("size(items)", d -> d.size("items"), Form.PLAIN, (id, f) -> size(MatrixRows.value("items",
                    id))),
            new Field("items[0].skuId", d -> d.hex(d.first("items") + ".skuId", false), Form.HEX,
                    (id, f) -> firstItem(id, 0)),
            new Field("items[0].qty", d -> d.first("items") + ".qty", Form.PLAIN, (id, f) -> firstItem(id, 1)),
            hex("added", d -> d.hex("added", false)));

    private FullScan() {
    }

    /** The statement: the id, then every field. */
    static String statement(Dialect dialect, String table) {
        List<String> expressions = new ArrayList<>(List.of("id"));
        FIELDS.forEach(field -> expressions.add(field.expression().apply(dialect)));
        return "select " + String.join(", ", expressions) + " from " + table;
    }

    /**
     * Each difference between the engine's rows and the produced ones, as check name (for {@link Limitation}s) and
     * what was expected and read; every row must come once.
     */
    static Map<String, String> differences(List<List<String>> rows, String format) {
        Map<String, String> differences = new java.util.TreeMap<>();
        Map<Integer, List<String>> byId = new java.util.HashMap<>();
        for (List<String> row : rows) {
            if (byId.put(Integer.parseInt(row.get(0)), row) != null) {
                differences.put("scan/id=" + row.get(0), "read twice");
            }
        }
        for (int id = 0; id < MatrixRows.ROWS; id++) {
            List<String> row = byId.get(id);
            if (row == null) {
                differences.put("scan/id=" + id, "not read");
                continue;
            }
            for (int i = 0; i < FIELDS.size(); i++) {
                Field field = FIELDS.get(i);
                String expected = canonical(field.form(), field.produced().apply(id, format));
                String read = canonical(field.form(), read(field.form(), row.get(i + 1)));
                if (!java.util.Objects.equals(expected, read)) {
                    differences.put("scan/" + field.label() + "/id=" + id, "expected " + shorten(expected) + ", read "
                            + shorten(read));
                }
            }
        }
        if (byId.size() != MatrixRows.ROWS) {
            differences.put("scan/count", "expected " + MatrixRows.ROWS + " rows, read " + byId.size());
        }
        return differences;
    }

    private static Field plain(String column, Function<Dialect, String> expression) {
        return field(column, expression, Form.PLAIN);
    }

    private static Field hex(String column, Function<Dialect, String> expression) {
        return field(column, expression, Form.HEX);
    }

    /** A column's own value, compared in the given form. */
    private static Field field(String column, Function<Dialect, String> expression, Form form) {
        return new Field(column, expression, form, (id, format) -> MatrixRows.value(column, id));
    }

    /**
     * A float or double as the table's files hold it: Parquet and ORC files hold -0.0 as 0.0 (the connector writes
     * it so, as readers' statistics mishandle the sign), Avro files keep the sign.
     */
    private static Object signedZero(Object value, String format) {
        if (value instanceof Number number && number.doubleValue() == 0 && !format.equals("avro")) {
            return value instanceof Float ? (Object) 0.0f : (Object) 0.0;
        }
        return value;
    }

    private static Object size(Object collection) {
        if (collection == null) {
            return null;
        }
        return collection instanceof List<?> list ? list.size() : ((Map<?, ?>) collection).size();
    }

    private static Object first(String column, int id) {
        Object value = MatrixRows.value(column, id);
        return value == null || ((List<?>) value).isEmpty() ? null : ((List<?>) value).get(0);
    }

    private static Object entry(int id, String key) {
        Object value = MatrixRows.value("m", id);
        return value == null ? null : ((Map<?, ?>) value).get(key);
    }

    private static Object firstItem(int id, int part) {
        Object value = first("items", id);
        return value == null ? null : ((Object[]) value)[part];
    }

    /** The engine's text as the value the canonical form takes: floats in any engine's spelling. */
    private static Object read(Form form, String text) {
        if (text == null) {
            return null;
        }
        return switch (form) {
            case FLOAT, DOUBLE -> switch (text.toLowerCase(Locale.ROOT)) {
                case "nan" -> Double.NaN;
                case "inf", "infinity" -> Double.POSITIVE_INFINITY;
                case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
                default -> Double.parseDouble(text);
            };
            case DECIMAL -> new BigDecimal(text);
            case TIMESTAMP -> LocalDateTime.parse(text.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
            case HEX -> new Hex(text);
            case PLAIN -> text;
        };
    }

    /** Hex text the engine rendered (as opposed to a produced string, which is hexed here). */
    private record Hex(String text) {
    }

    private static String canonical(Form form, Object value) {
        if (value == null) {
            return null;
        }
        return switch (form) {
            case FLOAT -> Float.toString(((Number) value).floatValue());
            case DOUBLE -> Double.toString(((Number) value).doubleValue());
            case DECIMAL -> ((BigDecimal) value).stripTrailingZeros().toPlainString();
            case TIMESTAMP -> timestamp((Instant) value);
            case HEX -> value instanceof Hex hex ? hex.text().toUpperCase(Locale.ROOT)
                    : HEX.formatHex(value instanceof byte[] bytes ? bytes
                            : value.toString().getBytes(StandardCharsets.UTF_8));
            case PLAIN -> value.toString().toLowerCase(Locale.ROOT);
        };
    }

    private static String timestamp(Instant instant) {
        String text = SECONDS.format(LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
        long millis = Math.floorMod(instant.toEpochMilli(), 1000L);
        return millis == 0 ? text : text + "." + String.format(Locale.ROOT, "%03d", millis).replaceAll("0+$", "");
    }

    private static String shorten(String text) {
        return text == null || text.length() <= 60 ? String.valueOf(text) : text.substring(0, 60) + "...("
                + text.length() + ")";
    }
}
