package io.hivesink.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * (pi) The Parquet baseline of Iceberg's Kafka Connect sink: each Struct made an Iceberg generic record, field by
 * field, as its record converter does, and appended with Iceberg's generic Parquet writer (the appender its data
 * writers use), one file on one thread, with the benchmark's codec, row group and page size, dictionary on. Handles
 * the flat records of the benchmark's data sets.
 */
final class IcebergParquet {

    private IcebergParquet() {
    }

    static long write(Scenario.Input input, String codec, OutputStream out) throws IOException {
        Scenario.CountingStream counting = new Scenario.CountingStream(out);
        org.apache.iceberg.Schema schema = AvroSchemaUtil.toIceberg(input.avroSchema());
        List<Field> fields = input.connectSchema().fields();
        try (FileAppender<Record> appender = Parquet.write(new StreamFile(counting)).schema(schema)
                .createWriterFunc(GenericParquetWriter::create)
                .set("write.parquet.compression-codec", codec.equals("none") ? "uncompressed" : codec)
                .set("write.parquet.row-group-size-bytes", Long.toString(Scenario.ROW_GROUP_BYTES))
                .set("write.parquet.page-size-bytes", Integer.toString(Scenario.PAGE_BYTES))
                .set("write.parquet.dict-size-bytes", Integer.toString(Scenario.PAGE_BYTES)).build()) {
            Types.StructType type = schema.asStruct();
            for (Struct struct : input.structs()) {
                GenericRecord record = GenericRecord.create(type);
                for (int i = 0; i < fields.size(); i++) {
                    record.set(i, struct.get(fields.get(i)));
                }
                appender.add(record);
            }
        }
        return counting.count;
    }

    /** An Iceberg output over a stream that counts and drops. */
    private record StreamFile(Scenario.CountingStream out) implements OutputFile {
        @Override
        public PositionOutputStream create() {
            return new PositionOutputStream() {
                @Override
                public long getPos() {
                    return out.count;
                }

                @Override
                public void write(int b) throws IOException {
                    out.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                }
            };
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            return create();
        }

        @Override
        public String location() {
            return "bench.parquet";
        }

        @Override
        public InputFile toInputFile() {
            throw new UnsupportedOperationException("written only");
        }
    }
}
