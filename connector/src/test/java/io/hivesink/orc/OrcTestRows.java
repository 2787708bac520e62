package io.hivesink.orc;

import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.hadoop.conf.Configuration;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.orc.RecordReader;
import org.apache.orc.storage.ql.exec.vector.BytesColumnVector;
import org.apache.orc.storage.ql.exec.vector.ColumnVector;
import org.apache.orc.storage.ql.exec.vector.DecimalColumnVector;
import org.apache.orc.storage.ql.exec.vector.DoubleColumnVector;
import org.apache.orc.storage.ql.exec.vector.ListColumnVector;
import org.apache.orc.storage.ql.exec.vector.LongColumnVector;
import org.apache.orc.storage.ql.exec.vector.MapColumnVector;
import org.apache.orc.storage.ql.exec.vector.StructColumnVector;
import org.apache.orc.storage.ql.exec.vector.TimestampColumnVector;
import org.apache.orc.storage.ql.exec.vector.VectorizedRowBatch;

import io.hivesink.format.NullableColumns;
import io.hivesink.testing.EveryTypeRows;

/** The rows of an ORC file as ORC's own reader gives them back, in the canonical form of {@link EveryTypeRows}. */
final class OrcTestRows {

    private OrcTestRows() {
    }

    /** Every row of the file, read as a table of {@code columns}. */
    static List<Map<String, Object>> read(java.nio.file.Path file, Schema columns) throws java.io.IOException {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (Reader reader = reader(file); RecordReader records = reader.rows()) {
            VectorizedRowBatch batch = reader.getSchema().createRowBatch();
            while (records.nextBatch(batch)) {
                StructColumnVector root = new StructColumnVector(batch.getMaxSize(), batch.cols);
                for (int row = 0; row < batch.size; row++) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> value = (Map<String, Object>) value(root, row, columns);
                    rows.add(value);
                }
            }
        }
        return rows;
    }

    static Reader reader(java.nio.file.Path file) throws java.io.IOException {
        return OrcFile.createReader(new org.apache.hadoop.fs.Path(file.toUri()),
                OrcFile.readerOptions(new Configuration()).useUTCTimestamp(true).convertToProlepticGregorian(true));
    }

    private static Object value(ColumnVector vector, int row, Schema schema) {
        int at = vector.isRepeating ? 0 : row;
        if (!vector.noNulls && vector.isNull[at]) {
            return null;
        }
        Schema type = NullableColumns.nonNull(schema);
        if (type.getLogicalType() instanceof LogicalTypes.Decimal decimal) {
            return ((DecimalColumnVector) vector).vector[at].getHiveDecimal().bigDecimalValue()
                    .setScale(decimal.getScale(), RoundingMode.UNNECESSARY).toPlainString();
        }
        if (type.getLogicalType() instanceof LogicalTypes.TimestampMillis) {
            return ((TimestampColumnVector) vector).getTime(at);
        }
        switch (type.getType()) {
            case RECORD: {
                StructColumnVector struct = (StructColumnVector) vector;
                Map<String, Object> out = new LinkedHashMap<>();
                List<Schema.Field> fields = type.getFields();
                for (int i = 0; i < fields.size(); i++) {
                    out.put(fields.get(i).name().toLowerCase(Locale.ROOT),
                            value(struct.fields[i], at, fields.get(i).schema()));
                }
                return out;
            }
            case ARRAY: {
                ListColumnVector list = (ListColumnVector) vector;
                List<Object> out = new ArrayList<>();
                for (long i = list.offsets[at]; i < list.offsets[at] + list.lengths[at]; i++) {
                    out.add(value(list.child, (int) i, type.getElementType()));
                }
                return out;
            }
            case MAP: {
                MapColumnVector map = (MapColumnVector) vector;
                Map<String, Object> out = new TreeMap<>();
                for (long i = map.offsets[at]; i < map.offsets[at] + map.lengths[at]; i++) {
                    out.put(((BytesColumnVector) map.keys).toString((int) i),
                            value(map.values, (int) i, type.getValueType()));
                }
                return out;
            }
            case STRING:
            case ENUM:
                return ((BytesColumnVector) vector).toString(at);
            case BYTES:
            case FIXED: {
                BytesColumnVector bytes = (BytesColumnVector) vector;
                return HexFormat.of().formatHex(bytes.vector[at], bytes.start[at], bytes.start[at] + bytes.length[at]);
            }
            case INT:
                return (int) ((LongColumnVector) vector).vector[at];
            case LONG:
                return ((LongColumnVector) vector).vector[at];
            case BOOLEAN:
                return ((LongColumnVector) vector).vector[at] != 0;
            case FLOAT:
                return (float) ((DoubleColumnVector) vector).vector[at];
            case DOUBLE:
                return ((DoubleColumnVector) vector).vector[at];
            default:
                throw new IllegalArgumentException("type " + type);
        }
    }
}
