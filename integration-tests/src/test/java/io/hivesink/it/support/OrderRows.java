package io.hivesink.it.support;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import io.hivesink.stack.SampleData;

/**
 * {@link SampleData#order}s as HiveServer2 renders them: the select list that reads every column type of an order
 * table as text, and the row it must return for an order id. Reading a table through it compares value by value.
 */
public final class OrderRows {

    private static final DateTimeFormatter HIVE_TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
            .withZone(ZoneOffset.UTC);

    /** Every column of an order, each as a string Hive can print, {@code id} first. */
    public static final String EVERY_COLUMN = "id, region, qty, tiny, small, price, weight, paid, note, status, "
            + "priority, hex(raw), cast(amount as string), cast(day as string), at, cast(ts as string), "
            + "cast(shipped_ts as string), tags[0], size(tags), attrs['size'], codes[0].key, codes[0].value, "
            + "address.street, address.zip";

    private OrderRows() {
    }

    /** What {@code select EVERY_COLUMN} returns for the order of {@code id}. */
    public static List<String> expected(long id) {
        List<String> row = new ArrayList<>();
        row.add(Long.toString(id));
        row.add(SampleData.region(id));
        row.add(Integer.toString(SampleData.qty(id)));
        row.add(Long.toString(id % 100));
        row.add(Long.toString(id % 30_000));
        row.add(Double.toString(id * 0.5));
        row.add(Float.toString((float) (id * 0.25)));
        row.add(Boolean.toString(id % 2 == 0));
        row.add(SampleData.note(id));
        row.add(SampleData.status(id));
        row.add(Integer.toString(SampleData.priority(id)));
        row.add(hex(("raw-" + id).getBytes(StandardCharsets.UTF_8)));
        row.add(SampleData.amount(id).toPlainString());
        row.add(SampleData.day(id).toString());
        row.add(Integer.toString(SampleData.timeOfDayMillis(id)));
        row.add(hiveTimestamp(SampleData.tsMillis(id)));
        row.add(id % 5 == 0 ? null : hiveTimestamp(SampleData.tsMillis(id) + 86_400_000L));
        row.add("t" + id);
        row.add("2");
        row.add(Long.toString(id % 5));
        row.add(Long.toString(id));
        row.add("c" + id);
        row.add(id + " Main Street");
        row.add(id % 3 == 0 ? null : Long.toString(10_000 + id));
        return row;
    }

    /** Hive renders a timestamp in UTC (the Hive child runs with user.timezone=UTC) as yyyy-MM-dd HH:mm:ss.SSS. */
    private static String hiveTimestamp(long epochMillis) {
        return HIVE_TIMESTAMP.format(Instant.ofEpochMilli(epochMillis));
    }

    private static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            out.append(String.format("%02X", b));
        }
        return out.toString();
    }
}
