package io.hivesink.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.connect.data.Struct;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcFile;
import org.apache.orc.TypeDescription;
import org.apache.orc.Writer;
import org.apache.orc.impl.PhysicalFsWriter;
import org.apache.orc.impl.writer.WriterEncryptionVariant;
import org.apache.orc.storage.ql.exec.vector.BytesColumnVector;
import org.apache.orc.storage.ql.exec.vector.ColumnVector;
import org.apache.orc.storage.ql.exec.vector.DoubleColumnVector;
import org.apache.orc.storage.ql.exec.vector.LongColumnVector;
import org.apache.orc.storage.ql.exec.vector.VectorizedRowBatch;

import io.hivesink.avro.encode.ConnectValueConverter;
import io.hivesink.orc.OrcSchemas;

/**
 * (oa) The baseline for ORC: each Struct made a GenericRecord, as an Avro-based sink holds it, and ORC's own writer,
 * with its defaults, filled from the records field by field, one file on one thread. Handles the flat records of the
 * benchmark's data sets (numbers, booleans, strings, bytes, nullable or not).
 */
final class OrcFromRecords {

    private OrcFromRecords() {
    }

    static long write(Scenario.Input input, String codec, OutputStream out) throws IOException {
        Scenario.CountingStream counting = new Scenario.CountingStream(out);
        TypeDescription schema = OrcSchemas.of(input.avroSchema());
        Configuration conf = new Configuration(false);
        OrcFile.WriterOptions options = OrcFile.writerOptions(conf).setSchema(schema)
                .compress(CompressionKind.valueOf(codec.toUpperCase(Locale.ROOT))).fileSystem(FileSystem.getLocal(
                        conf));
        options.physicalWriter(new PhysicalFsWriter(new FSDataOutputStream(counting, null), options,
                new WriterEncryptionVariant[0]));
        List<Schema.Field> fields = input.avroSchema().getFields();
        try (Writer writer = OrcFile.createWriter(new Path("baseline.orc"), options)) {
            VectorizedRowBatch batch = schema.createRowBatch();
            for (Struct struct : input.structs()) {
                GenericRecord record = ConnectValueConverter.convertRecord(struct, input.avroSchema());
                int row = batch.size++;
                for (int i = 0; i < fields.size(); i++) {
                    set(batch.cols[i], row, record.get(i));
                }
                if (batch.size == batch.getMaxSize()) {
                    writer.addRowBatch(batch);
                    batch.reset();
                }
            }
            if (batch.size > 0) {
                writer.addRowBatch(batch);
            }
        }
        return counting.count;
    }

    private static void set(ColumnVector vector, int row, Object value) {
        if (value == null) {
            vector.noNulls = false;
            vector.isNull[row] = true;
        } else if (vector instanceof LongColumnVector longs) {
            longs.vector[row] = value instanceof Boolean flag ? (flag ? 1 : 0) : ((Number) value).longValue();
        } else if (vector instanceof DoubleColumnVector doubles) {
            doubles.vector[row] = ((Number) value).doubleValue();
        } else if (vector instanceof BytesColumnVector bytes) {
            byte[] data;
            if (value instanceof Utf8 utf8) {
                data = utf8.getBytes();
                bytes.setVal(row, data, 0, utf8.getByteLength());
                return;
            }
            if (value instanceof ByteBuffer buffer) {
                data = new byte[buffer.remaining()];
                buffer.duplicate().get(data);
            } else {
                data = value.toString().getBytes(StandardCharsets.UTF_8);
            }
            bytes.setVal(row, data);
        } else {
            throw new IllegalArgumentException("The ORC baseline fills flat records only, not " + vector);
        }
    }
}
