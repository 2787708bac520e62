package io.hivesink.avro.container;

import static io.hivesink.avro.container.ContainerFiles.assertReadsBack;
import static io.hivesink.avro.container.ContainerFiles.sync;
import static io.hivesink.avro.container.ContainerFiles.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.hivesink.config.AvroCodecs;
import io.hivesink.format.DatumSource;

/** A file compressed block by block as its datums arrive is the file the streaming write makes. */
class FileBlocksTest {

    static ExecutorService pool;
    static TestRows rows;

    @BeforeAll
    static void setUp() {
        pool = Executors.newFixedThreadPool(2);
        rows = new TestRows(42, 300, 50, 5000); // every 50th record is larger than the two small sync intervals
    }

    @AfterAll
    static void tearDown() {
        pool.shutdownNow();
    }

    static FileBlocks appendAll(ParallelContainerWriter writer, DatumSource datums, byte[] sync) {
        FileBlocks blocks = writer.openFile(sync);
        for (int i = 0; i < datums.count(); i++) {
            blocks.append(datums.page(i), datums.start(i), datums.length(i));
        }
        return blocks;
    }

    @ParameterizedTest(name = "{0}, sync interval {1}")
    @MethodSource("io.hivesink.avro.container.ParallelContainerWriterTest#codecsAndIntervals")
    void writesTheBytesOfTheStreamingWrite(String codec, int syncInterval) {
        try (ParallelContainerWriter writer = new ParallelContainerWriter(pool, 2, codec, -1, syncInterval, Map.of())) {
            byte[] streamed = write(writer, TestRows.SCHEMA, rows.datums, sync(3));
            FileBlocks blocks = appendAll(writer, rows.datums, sync(3));
            assertEquals(rows.datums.count(), blocks.count());
            assertEquals(rows.datums.bytes(), blocks.bytes());
            byte[] early = write(writer, TestRows.SCHEMA, blocks, null);
            assertArrayEquals(streamed, early, "blocks compressed as they filled make other bytes");
            assertArrayEquals(early, write(writer, TestRows.SCHEMA, blocks, null), "written again");
            assertReadsBack(early, codec, TestRows.SCHEMA, rows.datums, syncInterval, rows.json());
        }
    }

    @Test
    void holdsCompressedBlocksInsteadOfRawBytes() throws Exception {
        // records of a few repeated words compress well: the compressed blocks hold much less than the datums
        try (ParallelContainerWriter writer = new ParallelContainerWriter(pool, 2, AvroCodecs.DEFLATE, -1, 2048,
                Map.of())) {
            FileBlocks blocks = appendAll(writer, rows.datums, sync(1));
            assertEquals(rows.datums.bytes(), blocks.bytes());
            awaitQuiet();
            long held = blocks.heldBytes();
            assertTrue(held < rows.datums.bytes() * 3 / 4,
                    "held " + held + " of " + rows.datums.bytes() + " raw bytes once blocks were compressed");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long written = writer.write(TestRows.SCHEMA, blocks, out);
            assertEquals(out.size(), written);
            assertTrue(blocks.heldBytes() < written, "after the write the file holds its framed blocks only");
        }
    }

    /** Waits until the pool's two threads finished every block: two tasks that each wait for both to start. */
    private static void awaitQuiet() throws Exception {
        CyclicBarrier both = new CyclicBarrier(2);
        Future<Integer> first = pool.submit(() -> both.await(10, TimeUnit.SECONDS));
        Future<Integer> second = pool.submit(() -> both.await(10, TimeUnit.SECONDS));
        first.get(10, TimeUnit.SECONDS);
        second.get(10, TimeUnit.SECONDS);
    }

    @Test
    void writesWhenThePoolTakesNothing() {
        ExecutorService stopped = Executors.newSingleThreadExecutor();
        stopped.shutdown();
        try (ParallelContainerWriter writer = new ParallelContainerWriter(stopped, 1, AvroCodecs.SNAPPY, -1, 2048,
                Map.of());
                ParallelContainerWriter streaming = new ParallelContainerWriter(pool, 2, AvroCodecs.SNAPPY, -1,
                        2048, Map.of())) {
            FileBlocks blocks = appendAll(writer, rows.datums, sync(5));
            byte[] early = write(writer, TestRows.SCHEMA, blocks, null);
            assertArrayEquals(write(streaming, TestRows.SCHEMA, rows.datums, sync(5)), early,
                    "blocks the pool refused are compressed by the writing thread");
        }
    }

    @Test
    void refusesWhatCannotBeWrittenCorrectly() {
        try (ParallelContainerWriter snappy = new ParallelContainerWriter(pool, 2, AvroCodecs.SNAPPY, -1, 2048,
                Map.of());
                ParallelContainerWriter deflate = new ParallelContainerWriter(pool, 2, AvroCodecs.DEFLATE, -1,
                        2048, Map.of())) {
            FileBlocks blocks = appendAll(snappy, rows.datums, sync(2));
            IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
                    () -> deflate.write(TestRows.SCHEMA, blocks, new ByteArrayOutputStream()));
            assertTrue(foreign.getMessage().contains("writer that opened them"), foreign.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> snappy.write(TestRows.SCHEMA, (DatumSource) blocks, new ByteArrayOutputStream(), sync(2)));
            assertThrows(UnsupportedOperationException.class, () -> blocks.page(0));

            write(snappy, TestRows.SCHEMA, blocks, null);
            assertThrows(IllegalStateException.class, () -> blocks.append(new byte[] {2}, 0, 1),
                    "a datum added after the file was written would be lost");

            FileBlocks dropped = appendAll(snappy, rows.datums, sync(2));
            dropped.discard();
            assertThrows(IllegalStateException.class,
                    () -> snappy.write(TestRows.SCHEMA, dropped, new ByteArrayOutputStream()));
        }
    }
}
