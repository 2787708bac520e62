package io.hivesink.orc;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

import org.apache.avro.Schema;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.orc.ColumnStatistics;
import org.apache.orc.CompressionKind;
import org.apache.orc.MemoryManager;
import org.apache.orc.OrcConf;
import org.apache.orc.OrcFile;
import org.apache.orc.OrcProto;
import org.apache.orc.StripeInformation;
import org.apache.orc.TypeDescription;
import org.apache.orc.impl.ColumnStatisticsImpl;
import org.apache.orc.impl.WriterImpl;
import org.apache.orc.storage.ql.exec.vector.ColumnVector;
import org.apache.orc.storage.ql.exec.vector.DateColumnVector;
import org.apache.orc.storage.ql.exec.vector.ListColumnVector;
import org.apache.orc.storage.ql.exec.vector.MapColumnVector;
import org.apache.orc.storage.ql.exec.vector.StructColumnVector;
import org.apache.orc.storage.ql.exec.vector.TimestampColumnVector;
import org.apache.orc.storage.ql.exec.vector.VectorizedRowBatch;

import io.hivesink.config.OrcCodecs;
import io.hivesink.format.DatumCursor;
import io.hivesink.format.DatumSource;
import io.hivesink.format.TableFileWriter;
import io.hivesink.format.WriterTasks;

/**
 * Writes a table's ORC files from Avro-encoded datums, stripes encoded in parallel and the rows in the datums'
 * (Kafka) order.
 *
 * <p>An ORC stripe is self-contained: its dictionaries, row index and streams refer to nothing outside it, which is
 * what lets ORC's own file merge copy stripes between files. That is the parallelism. The datums are cut into
 * stripes of about {@code stripeBytes} of encoded records, and into at least one per thread when there are enough
 * rows ({@link #MIN_SPLIT_ROWS} each); each stripe is encoded on the pool by ORC's own writer, filled from the
 * datums' bytes ({@link VectorFiller}), into memory; the writing thread appends the stripes in order to the file with
 * ORC's stripe append, which writes the footer and the file's statistics from the stripes'. At most one stripe per
 * thread, plus one, is held encoded at a time.
 *
 * <p>Thread-safe: files may be written concurrently; the pool is the caller's.
 */
public final class ParallelOrcWriter implements TableFileWriter {

    /**
     * The fewest rows a stripe is cut to so that threads share a file: one row index stride. Fewer rows make stripes
     * whose dictionaries and runs compress worse than the time saved is worth.
     */
    static final int MIN_SPLIT_ROWS = 10_000;
    private static final int ROW_INDEX_STRIDE = 10_000;
    private static final int COMPRESSION_BLOCK_MAX = 256 * 1024;
    static final Path PATH = new Path("hive-sink.orc"); // only named in ORC's logs
    /** No writer waits for another's memory: stripes are cut by the connector, and the batch's memory is budgeted. */
    private static final MemoryManager UNMANAGED = new MemoryManager() {
        @Override
        public void addWriter(Path path, long requestedAllocation, Callback callback) {
        }

        @Override
        public void removeWriter(Path path) {
        }

        @Override
        @Deprecated
        public void addedRow(int rows) {
        }
    };

    private final ExecutorService pool;
    private final int threads;
    private final CompressionKind codec;
    private final long stripeBytes;
    private final Map<String, String> metadata;
    private final Configuration conf;
    private final Map<Schema, TypeDescription> fileSchemas = new ConcurrentHashMap<>();

    /**
     * @param codec       one of {@link OrcCodecs#NAMES}
     * @param stripeBytes encoded datum bytes per stripe
     * @param metadata    user metadata of every file, for readers
     */
    public ParallelOrcWriter(ExecutorService pool, int threads, String codec, long stripeBytes,
            Map<String, String> metadata) {
        this.pool = Objects.requireNonNull(pool, "pool");
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, not " + threads);
        }
        this.threads = threads;
        this.codec = codecKind(codec);
        this.stripeBytes = stripeBytes;
        this.metadata = Map.copyOf(metadata);
        this.conf = conf();
    }

    /** The settings the connector's ORC files are written with. */
    static Configuration conf() {
        Configuration conf = new Configuration(false);
        // ORC's hash dictionary sorts its keys at every stripe's end: slower than its red-black tree (measured: 3.7 s
        // against 2.4 s for a Wide300 file of 75,000 rows)
        OrcConf.DICTIONARY_IMPL.setString(conf, "rbtree");
        return conf;
    }

    static CompressionKind codecKind(String name) {
        return switch (name) {
            case OrcCodecs.SNAPPY -> CompressionKind.SNAPPY;
            case OrcCodecs.ZLIB -> CompressionKind.ZLIB;
            case OrcCodecs.ZSTD -> CompressionKind.ZSTD;
            case OrcCodecs.NONE -> CompressionKind.NONE;
            default -> throw new IllegalArgumentException("ORC codec " + name + " is not one of " + OrcCodecs.NAMES);
        };
    }

    /** ORC files. */
    @Override
    public String extension() {
        return ".orc";
    }

    /**
     * The stripes being encoded and waiting to be appended, one per thread plus one, counted at 7/4 of their datums'
     * bytes: while a stripe is encoded, each string column's dictionary holds every distinct value with its tree
     * nodes and row numbers, beside the other columns' streams. Measured as the least heap that writes 40,000 Wide300
     * records with 2 threads: 152 MiB more than the Avro writer needs for the same 92 MB of datums (1.65x).
     */
    @Override
    public long writingBytes(DatumSource datums) {
        return Math.min(datums.bytes(), (threads + 1L) * stripeBytes) / 4 * 7;
    }

    @Override
    public long write(Schema schema, Schema columns, DatumSource datums, OutputStream out) throws IOException {
        TypeDescription fileSchema = fileSchemas.computeIfAbsent(columns, table -> {
            TypeDescription described = OrcSchemas.of(table);
            described.getMaximumId(); // assigns the column ids now, not lazily on the threads that share it
            return described;
        });
        CountingStream counted = new CountingStream(out);
        OrcFile.WriterOptions options = options(fileSchema);
        options.physicalWriter(new NanSafeStatistics(new FSDataOutputStream(counted, null), options));
        WriterImpl file = new WriterImpl(null, PATH, options);
        List<int[]> stripes = stripes(datums);
        Deque<Future<EncodedStripe>> pending = new ArrayDeque<>();
        try {
            int next = 0;
            while (next < stripes.size() || !pending.isEmpty()) {
                while (next < stripes.size() && pending.size() <= threads) {
                    int[] rows = stripes.get(next++);
                    Callable<EncodedStripe> encode = () -> encode(schema, columns, fileSchema, datums, rows[0],
                            rows[1]);
                    pending.add(stripes.size() == 1 ? runHere(encode) : WriterTasks.submit(pool, encode));
                }
                EncodedStripe stripe = pending.removeFirst().get();
                file.appendStripe(stripe.bytes, Math.toIntExact(stripe.information.getOffset()),
                        Math.toIntExact(stripe.information.getLength()), stripe.information, stripe.statistics);
            }
            metadata.forEach((key, value) -> file.addUserMetadata(key,
                    ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8))));
            file.close();
            return counted.count;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while encoding an ORC stripe");
        } catch (ExecutionException e) {
            throw WriterTasks.failure(e);
        } finally {
            pending.forEach(f -> f.cancel(false)); // after a failure: stripes not started need not start
        }
    }

    private static Future<EncodedStripe> runHere(Callable<EncodedStripe> encode) {
        FutureTask<EncodedStripe> task = new FutureTask<>(encode);
        task.run();
        return task;
    }

    /** The [from, to) rows of each stripe: about {@code stripeBytes} each, and one per thread if rows allow. */
    List<int[]> stripes(DatumSource datums) {
        int count = datums.count();
        long bySize = (datums.bytes() + stripeBytes - 1) / stripeBytes;
        long byThreads = Math.min(threads, count / MIN_SPLIT_ROWS);
        int wanted = (int) Math.max(1, Math.min(count, Math.max(bySize, byThreads)));
        long share = (datums.bytes() + wanted - 1) / wanted;
        List<int[]> stripes = new ArrayList<>(wanted);
        for (int from = 0; from < count; ) {
            int to = datums.runEnd(from, share);
            stripes.add(new int[] {from, to});
            from = to;
        }
        return stripes;
    }

    private OrcFile.WriterOptions options(TypeDescription fileSchema) {
        // a stripe's writer holds it whole: it never cuts a stripe of its own
        return options(conf, fileSchema, codec, stripeBytes, Long.MAX_VALUE / 4);
    }

    /**
     * How the connector writes ORC: the file version every reader since ORC 1.3 reads, UTC and proleptic Gregorian
     * timestamps and dates, and compression blocks sized for stripes of {@code stripeBytes}; the writer cuts a stripe
     * when it holds {@code stripeSize} bytes.
     */
    static OrcFile.WriterOptions options(Configuration conf, TypeDescription fileSchema, CompressionKind codec,
            long stripeBytes, long stripeSize) {
        int compressionBlock = WriterImpl.getEstimatedBufferSize(stripeBytes, fileSchema.getMaximumId() + 1,
                COMPRESSION_BLOCK_MAX);
        return OrcFile.writerOptions(conf).setSchema(fileSchema).compress(codec).version(OrcFile.Version.V_0_12)
                .rowIndexStride(ROW_INDEX_STRIDE).blockPadding(false).useUTCTimestamp(true)
                .setProlepticGregorian(true).memory(UNMANAGED).enforceBufferSize().bufferSize(compressionBlock)
                .stripeSize(stripeSize);
    }

    /**
     * One stripe as a file of its own in memory ({@code bytes}), of which the stripe (where {@code information}
     * places it) is copied into the table's file.
     */
    private static final class EncodedStripe {
        final byte[] bytes;
        final StripeInformation information;
        final OrcProto.StripeStatistics statistics;

        EncodedStripe(byte[] bytes, StripeInformation information, OrcProto.StripeStatistics statistics) {
            this.bytes = bytes;
            this.information = information;
            this.statistics = statistics;
        }
    }

    private EncodedStripe encode(Schema datumSchema, Schema tableSchema, TypeDescription fileSchema,
            DatumSource datums, int from, int to) throws IOException {
        ExposedBytes memory = new ExposedBytes((int) Math.min(Integer.MAX_VALUE - 16, bytesOf(datums, from, to)));
        OrcFile.WriterOptions options = options(fileSchema);
        options.physicalWriter(new NanSafeStatistics(new FSDataOutputStream(memory, null), options));
        WriterImpl writer = new WriterImpl(null, PATH, options);
        VectorFiller filler = VectorFiller.compile(datumSchema, tableSchema);
        VectorizedRowBatch batch = fileSchema.createRowBatch();
        for (ColumnVector column : batch.cols) {
            proleptic(column);
        }
        DatumCursor cursor = new DatumCursor();
        for (int i = from; i < to; i++) {
            cursor.reset(datums.page(i), datums.start(i), datums.length(i));
            try {
                filler.fill(cursor, batch, batch.size);
            } catch (RuntimeException e) {
                throw new IllegalStateException("Record " + i + " of the file is not a valid Avro datum of schema "
                        + datumSchema.getFullName() + ": " + e.getMessage(), e);
            }
            if (++batch.size == batch.getMaxSize()) {
                writer.addRowBatch(batch);
                batch.reset();
            }
        }
        if (batch.size > 0) {
            writer.addRowBatch(batch);
        }
        writer.close();
        List<StripeInformation> written = writer.getStripes();
        if (written.size() != 1) {
            throw new IllegalStateException("ORC wrote " + written.size() + " stripes where one was asked for");
        }
        StripeInformation stripe = written.get(0);
        OrcProto.StripeStatistics.Builder statistics = OrcProto.StripeStatistics.newBuilder();
        for (ColumnStatistics column : writer.getStatistics()) {
            statistics.addColStats(((ColumnStatisticsImpl) column).serialize());
        }
        return new EncodedStripe(memory.buffer(), stripe, statistics.build());
    }

    /**
     * Marks the batch's dates and timestamps as proleptic Gregorian, which Avro's are: the file says so, and ORC
     * converts from the hybrid Julian calendar values it is not told are proleptic already.
     */
    private static void proleptic(ColumnVector column) {
        if (column instanceof DateColumnVector dates) {
            dates.setUsingProlepticCalendar(true);
        } else if (column instanceof TimestampColumnVector timestamps) {
            timestamps.setUsingProlepticCalendar(true);
        } else if (column instanceof StructColumnVector struct) {
            for (ColumnVector field : struct.fields) {
                proleptic(field);
            }
        } else if (column instanceof ListColumnVector list) {
            proleptic(list.child);
        } else if (column instanceof MapColumnVector map) {
            proleptic(map.keys);
            proleptic(map.values);
        }
    }

    private static long bytesOf(DatumSource datums, int from, int to) {
        long bytes = 0;
        for (int i = from; i < to; i++) {
            bytes += datums.length(i);
        }
        return bytes;
    }

    /** The stream ORC writes the table's file to: counted, and flushed but not closed when ORC closes it. */
    static final class CountingStream extends FilterOutputStream {
        private long count;

        CountingStream(OutputStream out) {
            super(out);
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
        public void close() throws IOException {
            flush();
        }

        long count() {
            return count;
        }
    }

    /** A growing byte array whose buffer is read in place: a stripe is copied once, into the file. */
    private static final class ExposedBytes extends java.io.ByteArrayOutputStream {
        /** Sized for a stripe of {@code datumBytes}: ORC's compressed columns are a fraction of Avro's bytes. */
        ExposedBytes(int datumBytes) {
            super(Math.max(64 * 1024, datumBytes / 4));
        }

        byte[] buffer() {
            return buf;
        }
    }
}
