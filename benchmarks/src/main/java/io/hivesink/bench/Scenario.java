package io.hivesink.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.avro.Schema;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

import io.hivesink.avro.container.AvroCodecFactories;
import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.avro.datum.EncodedDatums;
import io.hivesink.avro.encode.ByteSink;
import io.hivesink.avro.encode.ConnectSchemaMapper;
import io.hivesink.avro.encode.ConnectValueConverter;
import io.hivesink.avro.encode.StructEncoder;
import io.hivesink.batch.Batch;
import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.RecordGroup;
import io.hivesink.batch.TableAdmission;
import io.hivesink.batch.TableLayouts;
import io.hivesink.format.DatumSource;
import io.hivesink.format.TableFileWriter;
import io.hivesink.input.ConfluentAvroInput;
import io.hivesink.input.ConfluentFrame;
import io.hivesink.input.ConnectInput;
import io.hivesink.orc.ParallelOrcWriter;
import io.hivesink.parquet.ParallelParquetWriter;
import io.hivesink.route.TableRouter;

/** One way of turning a batch of records (Connect Structs, or the same records as framed bytes) into an Avro file. */
public enum Scenario {

    /** (a) Struct to GenericRecord, then Avro's DataFileWriter with its defaults. */
    AVRO_DEFAULT("a: Struct->GenericRecord->DataFileWriter"),
    /** (b) the same with a buffered BinaryEncoder. */
    AVRO_BUFFERED("b: same, buffered encoder"),
    /** (c) hive-sink: compiled encoder in the background, parallel compression, blocks in order. */
    HIVE_SINK("c: hive-sink pipeline"),
    /** (d) hive-sink with input.format=confluent-avro: the framed datums checked and copied, never re-encoded. */
    PASSTHROUGH("d: hive-sink passthrough of Confluent-framed bytes"),
    /** (e) what Avro alone does with the same framed bytes: decode each datum, append it to DataFileWriter. */
    AVRO_FROM_BYTES("e: framed bytes->GenericDatumReader->DataFileWriter"),
    /**
     * (f) the floor of any passthrough: the datums already in memory, back to back, only compressed and written by
     * hive-sink's container writer.
     */
    WRITE_ONLY("f: datums already in memory, only compressed and written"),
    /** (pa) what Confluent's HDFS sink does for Parquet: Struct to GenericRecord, then parquet-avro's writer. */
    PARQUET_AVRO("pa: Struct->GenericRecord->AvroParquetWriter"),
    /** (pc) hive-sink writing Parquet: compiled encoder in the background, then columns encoded in parallel. */
    PARQUET_HIVE_SINK("pc: hive-sink Parquet pipeline"),
    /** (pd) hive-sink writing Parquet from Confluent-framed bytes. */
    PARQUET_PASSTHROUGH("pd: hive-sink Parquet, passthrough of framed bytes"),
    /** (pi) what Iceberg's sink does for Parquet: Struct to Iceberg record, then Iceberg's generic Parquet writer. */
    PARQUET_ICEBERG("pi: Struct->Iceberg Record->Iceberg Parquet writer"),
    /** (oa) ORC's own writer filled column by column from GenericRecords built from the Structs. */
    ORC_GENERIC("oa: Struct->GenericRecord->ORC Writer"),
    /** (oc) hive-sink writing ORC: compiled encoder in the background, then stripes encoded in parallel. */
    ORC_HIVE_SINK("oc: hive-sink ORC pipeline"),
    /** (od) hive-sink writing ORC from Confluent-framed bytes. */
    ORC_PASSTHROUGH("od: hive-sink ORC, passthrough of framed bytes");

    /** ORC's stripe size, as ORC's writer defaults it (64 MiB). */
    static final long STRIPE_BYTES = 64L << 20;

    /** Parquet's row group and page size, as both Parquet writers default them (128 MiB, 1 MiB). */
    static final long ROW_GROUP_BYTES = 128L << 20;
    static final int PAGE_BYTES = 1 << 20;

    /** Uncompressed bytes per Avro block: the connector's default (avro.sync.interval.bytes). */
    static final int SYNC_INTERVAL = 1 << 20;

    final String label;

    Scenario(String label) {
        this.label = label;
    }

    /** Prepared input of one run: what Connect would hand the task. */
    public record Input(org.apache.kafka.connect.data.Schema connectSchema, Schema avroSchema,
            List<Struct> structs, List<SinkRecord> sinkRecords, List<SinkRecord> framedRecords) {

        static final int SCHEMA_ID = 1;

        /** The same records as Confluent's serializer frames them, handed over by ByteArrayConverter. */
        public Input withFramedRecords() {
            StructEncoder encoder = StructEncoder.compile(connectSchema, avroSchema);
            ByteSink sink = new ByteSink(4096);
            List<SinkRecord> framed = new ArrayList<>(structs.size());
            for (int i = 0; i < structs.size(); i++) {
                sink.reset();
                encoder.encode(structs.get(i), sink);
                framed.add(new SinkRecord("bench", 0, null, null, null,
                        ConfluentFrame.frame(SCHEMA_ID, Arrays.copyOf(sink.array(), sink.size())), i));
            }
            return new Input(connectSchema, avroSchema, structs, sinkRecords, framed);
        }

        /** The datums of the framed records copied back to back into pages, as a batch holds them once encoded. */
        public DatumSource datumsInMemory() {
            EncodedDatums datums = new EncodedDatums();
            for (SinkRecord record : framedRecords) {
                byte[] value = (byte[]) record.value();
                ConfluentFrame frame = ConfluentFrame.of(value);
                datums.add(value, frame.offset(), frame.length());
            }
            return datums;
        }

        public static Input of(BenchData.DataSet set, int count, long seed) {
            org.apache.kafka.connect.data.Schema connect = BenchData.connectSchema(BenchData.avroSchema(set));
            List<Struct> structs = BenchData.records(connect, count, seed);
            List<SinkRecord> sinkRecords = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                sinkRecords.add(new SinkRecord("bench", 0, null, null, connect, structs.get(i), i));
            }
            Schema avro = ConnectSchemaMapper.toAvro(connect, "bench", "bench", Set.of());
            return new Input(connect, avro, structs, sinkRecords, null);
        }
    }

    /** Writes the whole input as one file to {@code out}; returns the file's size. */
    public long run(Input input, String codec, int threads, ExecutorService pool, OutputStream out)
            throws IOException {
        return switch (this) {
            case AVRO_DEFAULT, AVRO_BUFFERED -> avro(input, codec, out);
            case HIVE_SINK -> hiveSink(structBuffer(threads, pool), input.sinkRecords(), avroWriter(codec, threads,
                    pool), out);
            case PASSTHROUGH -> hiveSink(framedBuffer(input, threads, pool), input.framedRecords(),
                    avroWriter(codec, threads, pool), out);
            case PARQUET_AVRO -> parquetAvro(input, codec, out);
            case PARQUET_HIVE_SINK -> hiveSink(structBuffer(threads, pool), input.sinkRecords(),
                    parquetWriter(codec, threads, pool), out);
            case PARQUET_PASSTHROUGH -> hiveSink(framedBuffer(input, threads, pool), input.framedRecords(),
                    parquetWriter(codec, threads, pool), out);
            case ORC_GENERIC -> OrcFromRecords.write(input, orcCodec(codec), out);
            case PARQUET_ICEBERG -> IcebergParquet.write(input, parquetCodec(codec), out);
            case ORC_HIVE_SINK -> hiveSink(structBuffer(threads, pool), input.sinkRecords(),
                    orcWriter(codec, threads, pool), out);
            case ORC_PASSTHROUGH -> hiveSink(framedBuffer(input, threads, pool), input.framedRecords(),
                    orcWriter(codec, threads, pool), out);
            case AVRO_FROM_BYTES -> avroFromBytes(input, codec, out);
            case WRITE_ONLY -> writeOnly(input, codec, threads, pool, out);
        };
    }

    private static BatchBuffer structBuffer(int threads, ExecutorService pool) {
        return new BatchBuffer(ConnectInput.INSTANCE, byTopic(), layouts(), "bench", pool, 2 * threads + 2, false,
                null);
    }

    private static BatchBuffer framedBuffer(Input input, int threads, ExecutorService pool) {
        return new BatchBuffer(new ConfluentAvroInput(id -> input.avroSchema(), null), byTopic(), layouts(), "bench",
                pool, 2 * threads + 2, false, null);
    }

    private static TableFileWriter avroWriter(String codec, int threads, ExecutorService pool) {
        return new ParallelContainerWriter(pool, threads, codec, -1, SYNC_INTERVAL, Map.of());
    }

    private static TableFileWriter parquetWriter(String codec, int threads, ExecutorService pool) {
        return new ParallelParquetWriter(pool, threads, parquetCodec(codec), true, ROW_GROUP_BYTES, PAGE_BYTES,
                Map.of());
    }

    private static TableFileWriter orcWriter(String codec, int threads, ExecutorService pool) {
        return new ParallelOrcWriter(pool, threads, orcCodec(codec), STRIPE_BYTES, Map.of());
    }

    /** The ORC codec of the same family as an Avro codec name. */
    static String orcCodec(String avroCodec) {
        return switch (avroCodec) {
            case "null" -> "none";
            case "zstandard" -> "zstd";
            case "deflate" -> "zlib";
            default -> avroCodec;
        };
    }

    /** The Parquet codec of the same family as an Avro codec name. */
    static String parquetCodec(String avroCodec) {
        return switch (avroCodec) {
            case "null" -> "none";
            case "zstandard" -> "zstd";
            case "deflate" -> "gzip";
            default -> avroCodec;
        };
    }

    private static long parquetAvro(Input input, String codec, OutputStream out) throws IOException {
        CountingStream counting = new CountingStream(out);
        try (ParquetWriter<GenericRecord> writer = AvroParquetWriter.<GenericRecord>builder(new StreamFile(counting))
                .withSchema(input.avroSchema()).withConf(new Configuration())
                .withCompressionCodec(CompressionCodecName.fromConf(parquetCodec(codec).equals("none")
                        ? "UNCOMPRESSED" : parquetCodec(codec).toUpperCase(java.util.Locale.ROOT)))
                .withDictionaryEncoding(true).withRowGroupSize(ROW_GROUP_BYTES).withPageSize(PAGE_BYTES)
                .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0).build()) {
            for (Struct struct : input.structs()) {
                writer.write(ConnectValueConverter.convertRecord(struct, input.avroSchema()));
            }
        }
        return counting.count;
    }

    /** A Parquet output over a stream that counts and drops. */
    private record StreamFile(CountingStream out) implements OutputFile {
        @Override
        public PositionOutputStream create(long blockSizeHint) {
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
        public PositionOutputStream createOrOverwrite(long blockSizeHint) {
            return create(blockSizeHint);
        }

        @Override
        public boolean supportsBlockSize() {
            return false;
        }

        @Override
        public long defaultBlockSize() {
            return 0;
        }
    }

    /** One unpartitioned table, admitted without a metastore. */
    private static TableLayouts layouts() {
        return new TableLayouts("bench", table -> List.of(), TableAdmission.ANY);
    }

    private static long writeOnly(Input input, String codec, int threads, ExecutorService pool, OutputStream out)
            throws IOException {
        CountingStream counting = new CountingStream(out);
        try (ParallelContainerWriter writer = new ParallelContainerWriter(pool, threads, codec, -1, SYNC_INTERVAL,
                Map.of())) {
            writer.write(input.avroSchema(), input.datumsInMemory(), counting);
        }
        return counting.count;
    }

    private static long avroFromBytes(Input input, String codec, OutputStream out) throws IOException {
        CountingStream counting = new CountingStream(out);
        GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(input.avroSchema());
        BinaryDecoder decoder = null;
        try (DataFileWriter<GenericRecord> writer =
                new DataFileWriter<>(new GenericDatumWriter<>(input.avroSchema()))) {
            writer.setCodec(AvroCodecFactories.create(codec, -1));
            writer.create(input.avroSchema(), counting);
            for (SinkRecord record : input.framedRecords()) {
                byte[] value = (byte[]) record.value();
                ConfluentFrame frame = ConfluentFrame.of(value);
                decoder = DecoderFactory.get().binaryDecoder(value, frame.offset(), frame.length(), decoder);
                writer.append(reader.read(null, decoder));
            }
        }
        return counting.count;
    }

    private long avro(Input input, String codec, OutputStream out) throws IOException {
        CountingStream counting = new CountingStream(out);
        try (DataFileWriter<GenericRecord> writer =
                new DataFileWriter<>(new GenericDatumWriter<>(input.avroSchema()))) {
            writer.setCodec(AvroCodecFactories.create(codec, -1));
            if (this == AVRO_BUFFERED) {
                writer.setEncoder(stream -> EncoderFactory.get().binaryEncoder(stream, null));
            }
            writer.create(input.avroSchema(), counting);
            for (Struct struct : input.structs()) {
                writer.append(ConnectValueConverter.convertRecord(struct, input.avroSchema()));
            }
        }
        return counting.count;
    }

    private static long hiveSink(BatchBuffer buffer, List<SinkRecord> records, TableFileWriter writer,
            OutputStream out) throws IOException {
        int delivered = 0;
        for (SinkRecord record : records) {
            buffer.add(record, 0);
            if (++delivered % 500 == 0) {
                buffer.submitUnchunked(); // Connect hands records over in polls of max.poll.records (500)
            }
        }
        Batch batch = buffer.drain();
        CountingStream counting = new CountingStream(out);
        try {
            for (RecordGroup group : batch.groups()) {
                writer.write(group.layout().avroSchema(), group.layout().tableSchema(), group.datums(), counting);
            }
        } finally {
            if (writer instanceof ParallelContainerWriter container) {
                container.close();
            }
        }
        return counting.count;
    }

    public static ExecutorService pool(int threads) {
        return Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "bench-worker");
            t.setDaemon(true);
            return t;
        });
    }

    /** Counts bytes and drops them: the benchmark measures the writer, not the disk. */
    static final class CountingStream extends OutputStream {
        private final OutputStream out;
        long count;

        CountingStream(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }
    }

    /** Routes each record to the table named after its topic. */
    static TableRouter byTopic() {
        return new TableRouter(Map.of(), null, null, "${topic}", Set.of());
    }
}
