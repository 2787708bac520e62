package io.hivesink.parquet;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;


/**
 * The canonical form ({@link EveryTypeRows#canonical}) of a row Parquet's own (example) reader gives back.
 */
final class ParquetTestRows {

    private ParquetTestRows() {
    }

    /** Every row of the file, as Parquet's example reader gives it back, in canonical form. */
    static List<Map<String, Object>> read(java.nio.file.Path file) throws java.io.IOException {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(),
                new org.apache.hadoop.fs.Path(file.toUri())).withConf(new Configuration()).build()) {
            for (Group row = reader.read(); row != null; row = reader.read()) {
                rows.add(canonical(row));
            }
        }
        return rows;
    }

    /** The canonical form of a row Parquet's example reader gave back. */
    static Map<String, Object> canonical(Group row) {
        return record(row, row.getType());
    }

    private static Map<String, Object> record(Group group, GroupType type) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < type.getFieldCount(); i++) {
            out.put(type.getFieldName(i), group.getFieldRepetitionCount(i) == 0 ? null
                    : value(group, i, type.getType(i)));
        }
        return out;
    }

    private static Object value(Group group, int field, Type type) {
        if (type.isPrimitive()) {
            return primitive(group, field, type.asPrimitiveType());
        }
        Group value = group.getGroup(field, 0);
        LogicalTypeAnnotation annotation = type.getLogicalTypeAnnotation();
        if (annotation instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
            List<Object> out = new ArrayList<>();
            GroupType entryType = type.asGroupType().getType(0).asGroupType();
            for (int e = 0; e < value.getFieldRepetitionCount(0); e++) {
                Group entry = value.getGroup(0, e);
                out.add(entry.getFieldRepetitionCount(0) == 0 ? null : value(entry, 0, entryType.getType(0)));
            }
            return out;
        }
        if (annotation instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation) {
            Map<String, Object> out = new TreeMap<>();
            GroupType entryType = type.asGroupType().getType(0).asGroupType();
            for (int e = 0; e < value.getFieldRepetitionCount(0); e++) {
                Group entry = value.getGroup(0, e);
                out.put(entry.getString(0, 0), entry.getFieldRepetitionCount(1) == 0 ? null
                        : value(entry, 1, entryType.getType(1)));
            }
            return out;
        }
        return record(value, type.asGroupType());
    }

    private static Object primitive(Group group, int field, PrimitiveType type) {
        LogicalTypeAnnotation annotation = type.getLogicalTypeAnnotation();
        return switch (type.getPrimitiveTypeName()) {
            case INT32 -> group.getInteger(field, 0);
            case INT64 -> group.getLong(field, 0);
            case FLOAT -> group.getFloat(field, 0);
            case DOUBLE -> group.getDouble(field, 0);
            case BOOLEAN -> group.getBoolean(field, 0);
            case BINARY -> annotation instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
                    ? group.getString(field, 0) : HexFormat.of().formatHex(group.getBinary(field, 0).getBytes());
            case FIXED_LEN_BYTE_ARRAY -> new BigDecimal(new BigInteger(group.getBinary(field, 0).getBytes()),
                    ((LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) annotation).getScale()).toPlainString();
            case INT96 -> {
                ByteBuffer int96 = group.getInt96(field, 0).toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                long nanos = int96.getLong();
                long julianDay = int96.getInt();
                yield (julianDay - 2_440_588L) * 86_400_000L + nanos / 1_000_000L;
            }
        };
    }
}
