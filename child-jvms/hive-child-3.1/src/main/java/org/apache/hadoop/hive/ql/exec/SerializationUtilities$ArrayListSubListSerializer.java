package org.apache.hadoop.hive.ql.exec;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

import org.apache.hive.com.esotericsoftware.kryo.Kryo;
import org.apache.hive.com.esotericsoftware.kryo.Serializer;
import org.apache.hive.com.esotericsoftware.kryo.io.Input;
import org.apache.hive.com.esotericsoftware.kryo.io.Output;

/**
 * Replaces, on Java 9 and later, the Kryo serializer that Hive 3.1.3 nests in {@code SerializationUtilities} for the
 * views {@link ArrayList#subList} returns. Hive's reads the field {@code parentOffset} of {@code ArrayList$SubList},
 * which Java 9 renamed, so it throws as soon as Hive sets up a Kryo instance: every MapReduce job HiveServer2 plans,
 * and a metastore evaluating its partition filters, fail. This class has the same binary name and a public no-argument
 * constructor, so it stands in for Hive's when it comes before hive-exec on the class path (the child JVMs of this
 * module put it there).
 *
 * <p>Since Java 9 a sub list holds the {@code ArrayList} it views in {@code root}, where it starts in that list in
 * {@code offset} (nested sub lists count from the root too) and its length in {@code size}. It is written as that
 * list and a start and end, and read back as the same view of the list read. Needs {@code --add-opens
 * java.base/java.util=ALL-UNNAMED}. Kryo records the reference to the view itself once {@link #read} returns.
 */
public class SerializationUtilities$ArrayListSubListSerializer extends Serializer<List<?>> {

    private final Field rootList;
    private final Field start;
    private final Field length;

    public SerializationUtilities$ArrayListSubListSerializer() {
        Class<?> view = new ArrayList<>().subList(0, 0).getClass();
        try {
            rootList = opened(view.getDeclaredField("root"));
            start = opened(view.getDeclaredField("offset"));
            length = opened(view.getDeclaredField("size"));
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("this JDK's " + view.getName() + " has no root, offset and size fields",
                    e);
        }
    }

    private static Field opened(Field field) {
        field.setAccessible(true);
        return field;
    }

    @Override
    public void write(Kryo kryo, Output output, List<?> view) {
        int from = intOf(start, view);
        kryo.writeClassAndObject(output, valueOf(rootList, view));
        output.writeInt(from, true);
        output.writeInt(from + intOf(length, view), true);
    }

    @Override
    public List<?> read(Kryo kryo, Input input, Class<List<?>> type) {
        List<?> whole = (List<?>) kryo.readClassAndObject(input);
        int from = input.readInt(true);
        int to = input.readInt(true);
        return whole.subList(from, to);
    }

    @Override
    public List<?> copy(Kryo kryo, List<?> view) {
        int from = intOf(start, view);
        List<?> whole = (List<?>) kryo.copy(valueOf(rootList, view));
        return whole.subList(from, from + intOf(length, view));
    }

    private static Object valueOf(Field field, Object owner) {
        try {
            return field.get(owner);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + field, e);
        }
    }

    private static int intOf(Field field, Object owner) {
        try {
            return field.getInt(owner);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + field, e);
        }
    }
}
