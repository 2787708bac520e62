package io.hivesink.avro.container;

import static io.hivesink.avro.container.ContainerFiles.assertReadsBack;
import static io.hivesink.avro.container.ContainerFiles.sync;
import static io.hivesink.avro.container.ContainerFiles.write;
import static io.hivesink.avro.container.ContainerFiles.writeWithAvro;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.SeekableByteArrayInput;
import org.apache.avro.generic.GenericDatumReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.hivesink.avro.datum.EncodedDatums;
import io.hivesink.config.AvroCodecs;
import io.hivesink.format.DatumSource;

class ParallelContainerWriterTest {

    /** Tiny blocks (most hold one or two datums), a few datums per block, and everything in one block. */
    static final int[] SYNC_INTERVALS = {64, 2048, 64 << 20};
    static final int[] THREADS = {1, 2, 4};

    static final Map<Integer, ExecutorService> POOLS = new ConcurrentHashMap<>();
    static TestRows rows;
    static List<JsonNode> expected;

    @BeforeAll
    static void setUp() {
        for (int threads : THREADS) {
            POOLS.put(threads, Executors.newFixedThreadPool(threads));
        }
        // ~300 records of 20-300 bytes, every 50th with a 5 KB payload: larger than the two small intervals
        rows = new TestRows(42, 300, 50, 5000);
        expected = rows.json();
    }

    @AfterAll
    static void tearDown() {
        POOLS.values().forEach(ExecutorService::shutdownNow);
    }

    static ParallelContainerWriter writer(int threads, String codec, int syncInterval) {
        return new ParallelContainerWriter(POOLS.get(threads), threads, codec, -1, syncInterval, Map.of());
    }

    static Stream<String> codecs() {
        return AvroCodecs.NAMES.stream();
    }

    static Stream<Arguments> codecsAndIntervals() {
        List<Arguments> cases = new ArrayList<>();
        for (String codec : AvroCodecs.NAMES) {
            for (int interval : SYNC_INTERVALS) {
                // xz and bzip2 readers and writers build large state per block: tens of blocks, not hundreds
                boolean slow = codec.equals(AvroCodecs.XZ) || codec.equals(AvroCodecs.BZIP2);
                if (!(slow && interval < 2048)) {
                    cases.add(Arguments.of(codec, interval));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, sync interval {1}")
    @MethodSource("codecsAndIntervals")
    void roundTripsAtEveryThreadCountWithTheSameBytes(String codec, int syncInterval) throws Exception {
        byte[] first = null;
        for (int threads : THREADS) {
            try (ParallelContainerWriter writer = writer(threads, codec, syncInterval)) {
                byte[] file = write(writer, TestRows.SCHEMA, rows.datums, sync(1));
                assertReadsBack(file, codec, TestRows.SCHEMA, rows.datums, syncInterval, expected);
                if (first == null) {
                    first = file;
                } else {
                    assertArrayEquals(first, file, threads + " threads wrote other bytes than 1 thread");
                }
                // the same writer again: the same bytes from reused compressors and buffers
                assertArrayEquals(file, write(writer, TestRows.SCHEMA, rows.datums, sync(1)), "second file");
            }
        }
    }

    /**
     * Whether Avro's DataFileWriter writes the very same bytes as ours for a codec: all but two. Our zstd frames are
     * made in one call and carry their content size in the frame header; Avro's come from ZstdOutputStream, which does
     * not know the size up front. Avro's xz streams carry an extra LZMA2 flush point (a few bytes) before their end:
     * commons-compress 1.28's XZCompressorOutputStream is a FilterOutputStream, whose close() flushes before it
     * finishes. Both are valid, and both readers read ours (the other tests and FastavroInteropTest).
     */
    static boolean avroWritesTheSameBytes(String codec) {
        return !codec.equals(AvroCodecs.ZSTANDARD) && !codec.equals(AvroCodecs.XZ);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {AvroCodecs.NULL, AvroCodecs.DEFLATE, AvroCodecs.SNAPPY, AvroCodecs.BZIP2})
    void writesTheBytesAvroWrites(String codec) {
        int[] intervals = codec.equals(AvroCodecs.BZIP2)
                ? new int[] {4096, 64 << 20} // Avro's bzip2 allocates several MB per block: few blocks
                : SYNC_INTERVALS;
        for (int interval : intervals) {
            try (ParallelContainerWriter writer = writer(2, codec, interval)) {
                byte[] ours = write(writer, TestRows.SCHEMA, rows.datums, sync(7));
                byte[] avro = writeWithAvro(codec, -1, interval, TestRows.SCHEMA, rows.datums, sync(7));
                assertArrayEquals(avro, ours, codec + " at sync interval " + interval);
            }
        }
    }

    @Test
    void writesFurtherMetadataAsAvroDoes() throws IOException {
        Map<String, String> metadata = Map.of("writer.proleptic", "true", "writer.time.zone", "UTC", "x", "y");
        try (ParallelContainerWriter writer = new ParallelContainerWriter(POOLS.get(2), 2, AvroCodecs.SNAPPY, -1, 8192,
                metadata)) {
            byte[] ours = write(writer, TestRows.SCHEMA, rows.datums, sync(5));
            assertArrayEquals(writeWithAvro(AvroCodecs.SNAPPY, -1, 8192, TestRows.SCHEMA, rows.datums, sync(5),
                    metadata), ours);
            try (DataFileReader<Object> reader = new DataFileReader<>(new SeekableByteArrayInput(ours),
                    new GenericDatumReader<>())) {
                assertEquals("UTC", reader.getMetaString("writer.time.zone"));
                assertEquals("true", reader.getMetaString("writer.proleptic"));
            }
        }
        assertThrows(IllegalArgumentException.class, () -> new ParallelContainerWriter(POOLS.get(2), 2,
                AvroCodecs.NULL, -1, 8192, Map.of("avro.codec", "snappy")));
    }

    @Test
    void writesTheBytesAvroWritesAtOtherDeflateLevels() {
        for (int level : new int[] {1, 9}) {
            try (ParallelContainerWriter writer =
                    new ParallelContainerWriter(POOLS.get(2), 2, AvroCodecs.DEFLATE, level, 8192, Map.of())) {
                byte[] ours = write(writer, TestRows.SCHEMA, rows.datums, sync(3));
                assertArrayEquals(writeWithAvro(AvroCodecs.DEFLATE, level, 8192, TestRows.SCHEMA, rows.datums, sync(3)),
                        ours, "deflate-" + level);
            }
        }
    }

    @Test
    void zstandardAndXzAtOtherLevelsRoundTrip() {
        int[][] levels = {{1, 19}, {0, 9}};
        String[] codecs = {AvroCodecs.ZSTANDARD, AvroCodecs.XZ};
        for (int c = 0; c < codecs.length; c++) {
            for (int level : levels[c]) {
                try (ParallelContainerWriter writer = new ParallelContainerWriter(POOLS.get(2), 2, codecs[c], level,
                        16384, Map.of())) {
                    byte[] file = write(writer, TestRows.SCHEMA, rows.datums, sync(3));
                    assertReadsBack(file, codecs[c], TestRows.SCHEMA, rows.datums, 16384, expected);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("codecs")
    void anEmptyBatchMakesAValidEmptyFile(String codec) {
        EncodedDatums none = new EncodedDatums();
        try (ParallelContainerWriter writer = writer(2, codec, 1024)) {
            byte[] file = write(writer, TestRows.SCHEMA, none, sync(5));
            assertReadsBack(file, codec, TestRows.SCHEMA, none, 1024, List.of());
            assertArrayEquals(writeWithAvro(codec, -1, 1024, TestRows.SCHEMA, none, sync(5)), file);
        }
    }

    /** Datums larger than a page of EncodedDatums and than the block size, and blocks spanning pages. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {AvroCodecs.NULL, AvroCodecs.DEFLATE, AvroCodecs.SNAPPY, AvroCodecs.ZSTANDARD})
    void hugeDatumsAndBlocksAcrossPages(String codec) {
        TestRows big = new TestRows(7, 60, 30, 1_100_000); // two datums of 1.1 MB, the rest small: pages of 1 MiB
        List<JsonNode> bigExpected = big.json();
        for (int interval : new int[] {64 << 10, 2 << 20}) {
            try (ParallelContainerWriter writer = writer(2, codec, interval)) {
                byte[] file = write(writer, TestRows.SCHEMA, big.datums, sync(9));
                assertReadsBack(file, codec, TestRows.SCHEMA, big.datums, interval, bigExpected);
                if (avroWritesTheSameBytes(codec)) {
                    assertArrayEquals(writeWithAvro(codec, -1, interval, TestRows.SCHEMA, big.datums, sync(9)), file);
                }
            }
        }
    }

    /** Datums picked out of a buffer in another order, as a file of one partition is: no block lies back to back. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("codecs")
    void datumsScatteredOverPages(String codec) {
        int[] order = new int[rows.records.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = (i * 7) % order.length; // 300 and 7 are coprime: a permutation
        }
        DatumSource scattered = new Picked(rows.datums, order);
        List<JsonNode> scatteredExpected = new ArrayList<>();
        for (int i : order) {
            scatteredExpected.add(expected.get(i));
        }
        try (ParallelContainerWriter writer = writer(4, codec, 2048)) {
            byte[] file = write(writer, TestRows.SCHEMA, scattered, sync(11));
            assertReadsBack(file, codec, TestRows.SCHEMA, scattered, 2048, scatteredExpected);
            if (avroWritesTheSameBytes(codec)) {
                assertArrayEquals(writeWithAvro(codec, -1, 2048, TestRows.SCHEMA, scattered, sync(11)), file);
            }
        }
    }

    /** Records of a schema without fields encode to no bytes at all: blocks of records but no data. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("codecs")
    void datumsOfNoBytes(String codec) {
        Schema empty = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Nothing\",\"fields\":[]}");
        EncodedDatums nothing = new EncodedDatums();
        List<JsonNode> nothingExpected = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            nothing.add(new byte[0], 0, 0);
            nothingExpected.add(TestRows.parse("{}"));
        }
        try (ParallelContainerWriter writer = writer(2, codec, 64)) {
            byte[] file = write(writer, empty, nothing, sync(13));
            assertReadsBack(file, codec, empty, nothing, 64, nothingExpected);
            if (avroWritesTheSameBytes(codec)) {
                assertArrayEquals(writeWithAvro(codec, -1, 64, empty, nothing, sync(13)), file);
            }
        }
    }

    @Test
    void aRandomSyncMarkerPerFile() {
        try (ParallelContainerWriter writer = writer(2, AvroCodecs.SNAPPY, 1024)) {
            byte[] a = write(writer, TestRows.SCHEMA, rows.datums, null);
            byte[] b = write(writer, TestRows.SCHEMA, rows.datums, null);
            assertReadsBack(a, AvroCodecs.SNAPPY, TestRows.SCHEMA, rows.datums, 1024, expected);
            assertReadsBack(b, AvroCodecs.SNAPPY, TestRows.SCHEMA, rows.datums, 1024, expected);
            assertFalse(Arrays.equals(a, b), "two files with the same sync marker");
            // the marker ends the header and every block, so the last 16 bytes are it
            byte[] lastA = Arrays.copyOfRange(a, a.length - 16, a.length);
            byte[] lastB = Arrays.copyOfRange(b, b.length - 16, b.length);
            assertFalse(Arrays.equals(lastA, lastB));
        }
    }

    @Test
    void oneWriterWritesFilesOfDifferentSchemasOneAfterAnother() {
        Schema other = new Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"Small\",\"fields\":[{\"name\":\"v\",\"type\":\"long\"}]}");
        EncodedDatums longs = new EncodedDatums();
        List<JsonNode> longsExpected = new ArrayList<>();
        for (long v = -500; v < 500; v++) {
            byte[] encoded = new byte[10];
            int length = AvroLongs.put(v * 1_000_003, encoded, 0);
            longs.add(encoded, 0, length);
            longsExpected.add(TestRows.parse("{\"v\":" + v * 1_000_003 + "}"));
        }
        try (ParallelContainerWriter writer = writer(2, AvroCodecs.DEFLATE, 256)) {
            for (int round = 0; round < 3; round++) {
                assertReadsBack(write(writer, TestRows.SCHEMA, rows.datums, sync(round)), AvroCodecs.DEFLATE,
                        TestRows.SCHEMA, rows.datums, 256, expected);
                assertReadsBack(write(writer, other, longs, sync(round)), AvroCodecs.DEFLATE, other, longs, 256,
                        longsExpected);
            }
        }
    }

    /** The oldest block is written as soon as it is done, and never more than the window is compressed ahead. */
    @Test
    void boundedBlocksInFlightAndWrittenInOrder() throws Exception {
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newFixedThreadPool(2);
        try (ParallelContainerWriter writer = new ParallelContainerWriter(pool, 1, AvroCodecs.SNAPPY, -1, 64,
                Map.of())) {
            // every write of a block checks how many blocks were handed to the pool but not yet written
            long[] maxAhead = new long[1];
            long[] writes = new long[1];
            long submittedBefore = pool.getTaskCount();
            OutputStream out = new ByteArrayOutputStream() {
                @Override
                public synchronized void write(byte[] b, int off, int len) {
                    super.write(b, off, len);
                    long blocksWritten = writes[0]++; // the first write is the header
                    if (blocksWritten > 0) {
                        maxAhead[0] = Math.max(maxAhead[0], pool.getTaskCount() - submittedBefore - blocksWritten);
                    }
                }
            };
            writer.write(TestRows.SCHEMA, rows.datums, out, sync(1));
            assertTrue(maxAhead[0] <= 3, "blocks ahead of the writer: " + maxAhead[0]);
            assertEquals(ContainerFiles.avroBlockCounts(rows.datums, 64).size() + 1, writes[0], "one write per block");
        } finally {
            pool.shutdownNow();
        }
    }

    /** A write called on a thread of its own pool, which has no other thread, still finishes: it compresses itself. */
    @Test
    void progressesWhenThePoolHasNoFreeThread() throws Exception {
        ExecutorService single = Executors.newSingleThreadExecutor();
        try (ParallelContainerWriter writer = new ParallelContainerWriter(single, 1, AvroCodecs.ZSTANDARD, -1, 256,
                Map.of())) {
            Future<byte[]> file = single.submit(() -> write(writer, TestRows.SCHEMA, rows.datums, sync(2)));
            byte[] bytes = file.get(30, TimeUnit.SECONDS);
            assertReadsBack(bytes, AvroCodecs.ZSTANDARD, TestRows.SCHEMA, rows.datums, 256, expected);
        } finally {
            single.shutdownNow();
        }
    }

    @Test
    void aFailingStreamFailsTheWriteAndTheWriterStaysUsable() throws Exception {
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newFixedThreadPool(2);
        try (ParallelContainerWriter writer = new ParallelContainerWriter(pool, 2, AvroCodecs.DEFLATE, -1, 64,
                Map.of())) {
            OutputStream failing = new OutputStream() {
                int writes;

                @Override
                public void write(int b) throws IOException {
                    write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    if (++writes == 5) {
                        throw new IOException("disk full");
                    }
                }
            };
            IOException e = assertThrows(IOException.class,
                    () -> writer.write(TestRows.SCHEMA, rows.datums, failing, sync(1)));
            assertEquals("disk full", e.getMessage());
            byte[] file = write(writer, TestRows.SCHEMA, rows.datums, sync(1));
            assertReadsBack(file, AvroCodecs.DEFLATE, TestRows.SCHEMA, rows.datums, 64, expected);
            try (ParallelContainerWriter fresh = writer(1, AvroCodecs.DEFLATE, 64)) {
                assertArrayEquals(write(fresh, TestRows.SCHEMA, rows.datums, sync(1)), file);
            }
                } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aShutDownPoolFailsTheWrite() {
        ExecutorService pool = Executors.newFixedThreadPool(1);
        pool.shutdown();
        try (ParallelContainerWriter writer = new ParallelContainerWriter(pool, 1, AvroCodecs.SNAPPY, -1, 64,
                Map.of())) {
            IOException e = assertThrows(IOException.class,
                    () -> writer.write(TestRows.SCHEMA, rows.datums, new ByteArrayOutputStream(), sync(1)));
            assertTrue(e.getMessage().contains("shut down"), e.getMessage());
            // the null codec needs no pool
        }
        try (ParallelContainerWriter writer = new ParallelContainerWriter(pool, 1, AvroCodecs.NULL, -1, 64, Map.of())) {
            assertReadsBack(write(writer, TestRows.SCHEMA, rows.datums, sync(1)), AvroCodecs.NULL, TestRows.SCHEMA,
                    rows.datums, 64, expected);
        }
    }

    @Test
    void oneFileAtATimePerWriter() throws Exception {
        ExecutorService callers = Executors.newSingleThreadExecutor();
        try (ParallelContainerWriter writer = writer(2, AvroCodecs.SNAPPY, 1024)) {
            CountDownLatch writing = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            OutputStream blocking = new ByteArrayOutputStream() {
                @Override
                public synchronized void write(byte[] b, int off, int len) {
                    writing.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    super.write(b, off, len);
                }
            };
            Future<Long> first = callers.submit(() -> writer.write(TestRows.SCHEMA, rows.datums, blocking, sync(1)));
            writing.await();
            assertThrows(IllegalStateException.class,
                    () -> writer.write(TestRows.SCHEMA, rows.datums, new ByteArrayOutputStream(), sync(1)));
            assertThrows(IllegalStateException.class, writer::close);
            release.countDown();
            assertTrue(first.get(30, TimeUnit.SECONDS) > 0);
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void closedWriterRefusesToWrite() {
        ParallelContainerWriter writer = writer(1, AvroCodecs.ZSTANDARD, 1024);
        write(writer, TestRows.SCHEMA, rows.datums, sync(1));
        writer.close();
        writer.close();
        assertThrows(IllegalStateException.class,
                () -> writer.write(TestRows.SCHEMA, rows.datums, new ByteArrayOutputStream(), sync(1)));
    }

    @Test
    void rejectsBadSettings() {
        ExecutorService pool = POOLS.get(1);
        assertThrows(IllegalArgumentException.class, () -> new ParallelContainerWriter(pool, 1, "lz4", -1, 1024,
                Map.of()));
        assertThrows(IllegalArgumentException.class,
                () -> new ParallelContainerWriter(pool, 1, AvroCodecs.DEFLATE, 10, 1024, Map.of()));
        assertThrows(IllegalArgumentException.class,
                () -> new ParallelContainerWriter(pool, 1, AvroCodecs.ZSTANDARD, 23, 1024, Map.of()));
        assertThrows(IllegalArgumentException.class, () -> new ParallelContainerWriter(pool, 1, AvroCodecs.XZ, 10,
                1024, Map.of()));
        assertThrows(IllegalArgumentException.class,
                () -> new ParallelContainerWriter(pool, 1, AvroCodecs.SNAPPY, -1, 31, Map.of()));
        assertThrows(IllegalArgumentException.class,
                () -> new ParallelContainerWriter(pool, 1, AvroCodecs.SNAPPY, -1, (1 << 30) + 1, Map.of()));
        assertThrows(IllegalArgumentException.class,
                () -> new ParallelContainerWriter(pool, 0, AvroCodecs.SNAPPY, -1, 1024, Map.of()));
        try (ParallelContainerWriter writer = writer(1, AvroCodecs.NULL, 1024)) {
            assertThrows(IllegalArgumentException.class,
                    () -> writer.write(TestRows.SCHEMA, rows.datums, new ByteArrayOutputStream(), new byte[15]));
        }
    }

    @Test
    void avroLongsMatchAvrosEncoder() throws IOException {
        long[] values = {0, 1, -1, 63, -64, 64, -65, 8191, 8192, Integer.MAX_VALUE, Integer.MIN_VALUE, Long.MAX_VALUE,
            Long.MIN_VALUE};
        for (long value : values) {
            ByteArrayOutputStream expectedBytes = new ByteArrayOutputStream();
            org.apache.avro.io.BinaryEncoder encoder = org.apache.avro.io.EncoderFactory.get()
                    .directBinaryEncoder(expectedBytes, null);
            encoder.writeLong(value);
            encoder.flush();
            byte[] ours = new byte[AvroLongs.MAX_SIZE];
            int length = AvroLongs.put(value, ours, 0);
            assertEquals(AvroLongs.size(value), length);
            assertArrayEquals(expectedBytes.toByteArray(), Arrays.copyOf(ours, length), Long.toString(value));
        }
    }

    /** Datums of another source in a given order: none lie back to back. */
    static final class Picked implements DatumSource {
        private final DatumSource source;
        private final int[] order;

        Picked(DatumSource source, int[] order) {
            this.source = source;
            this.order = order;
        }

        @Override
        public int count() {
            return order.length;
        }

        @Override
        public byte[] page(int datum) {
            return source.page(order[datum]);
        }

        @Override
        public int start(int datum) {
            return source.start(order[datum]);
        }

        @Override
        public int length(int datum) {
            return source.length(order[datum]);
        }

        @Override
        public long bytes() {
            return source.bytes();
        }
    }
}
