package io.hivesink.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.SeekableByteArrayInput;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.config.AvroCodecs;
import io.hivesink.input.ConnectInput;
import io.hivesink.route.FieldPartitioner;
import io.hivesink.route.TableRouter;

class BatchBufferTest {

    static final Schema ORDER = SchemaBuilder.struct().name("Order")
            .field("id", Schema.INT64_SCHEMA)
            .field("region", Schema.STRING_SCHEMA)
            .build();

    static SinkRecord order(String topic, int partition, long offset, String region) {
        return new SinkRecord(topic, partition, null, null, ORDER,
                new Struct(ORDER).put("id", offset).put("region", region), offset);
    }

    static final ExecutorService POOL = Executors.newFixedThreadPool(2);

    @AfterAll
    static void stopPool() {
        POOL.shutdownNow();
    }

    /** Every table partitioned by region, admitted without a metastore. */
    static TableLayouts byRegion() {
        return new TableLayouts("db", table -> List.of(new FieldPartitioner(List.of("region"))), TableAdmission.ANY);
    }

    static BatchBuffer buffer() {
        TableRouter router = new TableRouter(Map.of("customers", "dim_customers"), null, null, "${topic}", Set.of());
        return new BatchBuffer(ConnectInput.INSTANCE, router, byRegion(), "sink-t0-run", POOL, 3, false, null);
    }

    @Test
    void groupsRecordsPerTableAndPartitionAndTracksOffsets() {
        BatchBuffer buffer = buffer();
        buffer.add(order("orders", 0, 10, "eu"), 1_000);
        buffer.add(order("orders", 0, 11, "us"), 1_001);
        buffer.add(order("orders", 1, 5, "eu"), 1_002);
        buffer.add(order("customers", 0, 0, "eu"), 1_003);
        assertEquals(4, buffer.recordCount());
        assertEquals(1_000, buffer.openedAtMs());

        Batch batch = buffer.drain();
        assertEquals("sink-t0-run-1", batch.id());
        assertTrue(batch.bytes() > 0);
        assertEquals(3, batch.groups().size());
        assertEquals(List.of("orders", "dim_customers"), List.copyOf(batch.tables()));
        assertEquals(2, batch.groups().get(0).datums().count(), "orders/eu holds offsets 10 (p0) and 5 (p1)");
        assertEquals("region=eu", batch.groups().get(0).partition().path());
        assertEquals(Map.of(new TopicPartition("orders", 0), 12L, new TopicPartition("orders", 1), 6L,
                new TopicPartition("customers", 0), 1L), batch.nextOffsets());
        assertTrue(buffer.isEmpty());
        assertEquals("sink-t0-run-2", buffer.drain().id());
    }

    @Test
    void redeliveredRecordsAreSkippedUntilTheirPartitionIsForgotten() {
        BatchBuffer buffer = buffer();
        assertTrue(buffer.add(order("orders", 0, 10, "eu"), 0));
        buffer.drain();
        assertFalse(buffer.add(order("orders", 0, 10, "eu"), 0), "already in a closed batch");
        assertTrue(buffer.add(order("orders", 0, 11, "eu"), 0));
        Map<TopicPartition, Long> dropped = buffer.discard();
        assertEquals(Map.of(new TopicPartition("orders", 0), 11L), dropped);
        assertTrue(buffer.add(order("orders", 0, 11, "eu"), 0), "re-read after the discard");
    }

    @Test
    void tombstoneSchemalessAndPrimitiveValuesNameTheRecord() {
        assertBadRecord(new SinkRecord("orders", 2, null, null, ORDER, null, 77),
                "Record topic=orders partition=2 offset=77: ", "tombstone");
        assertBadRecord(new SinkRecord("orders", 0, null, null, null, Map.of("id", 1), 3),
                "Record topic=orders partition=0 offset=3: ", "schemas.enable=true");
        assertBadRecord(new SinkRecord("orders", 0, null, null, Schema.STRING_SCHEMA, "x", 4),
                "Record topic=orders partition=0 offset=4: ", "not a Struct");
        Schema noRegion = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build();
        assertBadRecord(new SinkRecord("orders", 0, null, null, noRegion, new Struct(noRegion).put("id", 1L), 5),
                "Record topic=orders partition=0 offset=5: ", "'region'");
    }

    /** A bad record is reported, naming it, when its chunk has been encoded: at the latest when the batch closes. */
    private static void assertBadRecord(SinkRecord bad, String prefix, String hint) {
        BatchBuffer buffer = buffer();
        buffer.add(order("orders", 9, 0, "eu"), 0);
        buffer.add(bad, 0);
        DataException e = assertThrows(DataException.class, buffer::drain);
        assertTrue(e.getMessage().startsWith(prefix), e.getMessage());
        assertTrue(e.getMessage().contains(hint), e.getMessage());
    }

    /**
     * Blocks compressed as the batch fills make files that hold what the same batch makes when its blocks are
     * compressed at the write, in the same blocks; the batch then holds its compressed blocks, not its raw bytes.
     */
    @Test
    void blocksCompressedAsTheBatchFillsWriteTheSameRecords() throws Exception {
        try (ParallelContainerWriter writer = new ParallelContainerWriter(POOL, 2, AvroCodecs.DEFLATE, -1, 4096,
                Map.of())) {
            BatchBuffer early = new BatchBuffer(ConnectInput.INSTANCE, byTopic(),
                    byRegion(), "sink-t0-run", POOL, 3, false, table -> writer);
            BatchBuffer late = buffer();
            int n = ChunkSizer.MAX_CHUNK_RECORDS * 3 + 13;
            for (int i = 0; i < n; i++) {
                SinkRecord record = order("orders", i % 3, i, i % 7 == 0 ? "eu" : "us");
                early.add(record, 0);
                late.add(record, 0);
                if (i % 500 == 0) {
                    early.submitUnchunked();
                }
            }
            Batch compressedEarly = early.drain();
            Batch compressedLate = late.drain();
            assertEquals(n, compressedEarly.records());
            assertEquals(compressedLate.bytes(), compressedEarly.bytes());
            assertEquals(2, compressedEarly.groups().size());
            long written = 0;
            for (int g = 0; g < 2; g++) {
                RecordGroup group = compressedEarly.groups().get(g);
                assertEquals(compressedLate.groups().get(g).partition(), group.partition());
                byte[] file = write(writer, group);
                written += file.length;
                assertEquals(read(write(writer, compressedLate.groups().get(g))), read(file));
                assertEquals(group.datums().count(), read(file).size());
            }
            assertTrue(compressedEarly.heldBytes() <= written,
                    "held " + compressedEarly.heldBytes() + " once written, files of " + written + " bytes");
            assertTrue(compressedEarly.heldBytes() < compressedLate.heldBytes(),
                    compressedEarly.heldBytes() + " compressed, " + compressedLate.heldBytes() + " raw");

            early.add(order("orders", 0, n, "eu"), 0);
            early.discard(); // the open batch's file is dropped: its blocks are not compressed
            early.add(order("orders", 0, n, "eu"), 0);
            assertEquals(1, read(write(writer, early.drain().groups().get(0))).size());
        }
    }

    /**
     * A batch whose Avro table's blocks are compressed early and whose columnar table's datums stay in the chunks:
     * the chunks the columnar table picks from are kept (and counted as held), the others let go, and both tables
     * get every record of theirs, in order.
     */
    @Test
    void aColumnarTableKeepsItsChunksBesideAnAvroTableCompressedEarly() throws Exception {
        try (ParallelContainerWriter writer = new ParallelContainerWriter(POOL, 2, AvroCodecs.DEFLATE, -1, 4096,
                Map.of())) {
            BatchBuffer mixed = new BatchBuffer(ConnectInput.INSTANCE, byTopic(), byRegion(), "sink-t0-run", POOL, 3,
                    false, table -> table.equals("orders") ? writer : null);
            BatchBuffer late = buffer();
            int n = ChunkSizer.MAX_CHUNK_RECORDS * 3 + 13;
            for (int i = 0; i < n; i++) {
                // returns only in the first chunks: the later ones hold Avro records only
                SinkRecord record = order(i % 5 == 0 && i < 100 ? "returns" : "orders", 0, i, "eu");
                mixed.add(record, 0);
                late.add(record, 0);
                if (i % 500 == 0) {
                    mixed.submitUnchunked();
                }
            }
            Batch batch = mixed.drain();
            Batch reference = late.drain();
            assertEquals(n, batch.records());
            assertEquals(2, batch.groups().size());
            for (int g = 0; g < 2; g++) {
                RecordGroup group = batch.groups().get(g);
                assertEquals(reference.groups().get(g).table(), group.table());
                assertEquals(read(write(writer, reference.groups().get(g))), read(write(writer, group)), group.table());
            }
            assertTrue(batch.heldBytes() >= reference.groups().stream().filter(g -> g.table().equals("returns"))
                    .mapToLong(g -> g.datums().bytes()).sum(), "the columnar table's datums are held");
            assertTrue(batch.heldBytes() < reference.heldBytes(), "chunks of Avro records only are let go: held "
                    + batch.heldBytes() + " of " + reference.heldBytes());
        }
    }

    /**
     * A batch that failed partway through taking a chunk (a table's file could not be opened) cannot be closed: its
     * first records would be taken twice. Dropped and read again, the records land once each.
     */
    @Test
    void aBatchThatFailedWhileTakingAChunkIsDroppedNotClosed() throws Exception {
        try (ParallelContainerWriter writer = new ParallelContainerWriter(POOL, 2, AvroCodecs.SNAPPY, -1, 4096,
                Map.of())) {
            boolean[] broken = {true};
            BatchBuffer buffer = new BatchBuffer(ConnectInput.INSTANCE, byTopic(),
                    byRegion(), "sink-t0-run", POOL, 3, false, table -> {
                        if (broken[0] && table.equals("returns")) {
                            throw new IllegalStateException("no writer for " + table);
                        }
                        return writer;
                    });
            List<SinkRecord> records = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                records.add(order(i % 2 == 0 ? "orders" : "returns", 0, i / 2, "eu"));
            }
            assertThrows(IllegalStateException.class, () -> {
                records.forEach(record -> buffer.add(record, 0));
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (System.nanoTime() < deadline) {
                    buffer.submitUnchunked(); // takes the chunks encoded by now, as put() does
                    Thread.sleep(5);
                }
            }, "a chunk that mixes both tables fails while it is taken, before the batch closes");
            RuntimeException again = assertThrows(RuntimeException.class, buffer::drain);
            assertTrue(again.getMessage().contains("dropped"), again.getMessage());

            buffer.discard();
            broken[0] = false;
            records.forEach(record -> buffer.add(record, 0));
            Batch batch = buffer.drain();
            assertEquals(records.size(), batch.records());
            for (RecordGroup group : batch.groups()) {
                assertEquals(records.size() / 2, read(write(writer, group)).size(), group.table());
            }
        }
    }

    private static byte[] write(ParallelContainerWriter writer, RecordGroup group) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writer.write(group.layout().avroSchema(), group.datums(), out);
        return out.toByteArray();
    }

    private static List<String> read(byte[] file) throws IOException {
        List<String> records = new ArrayList<>();
        try (DataFileReader<GenericRecord> reader = new DataFileReader<>(new SeekableByteArrayInput(file),
                new GenericDatumReader<>())) {
            reader.forEach(record -> records.add(record.toString()));
        }
        return records;
    }

    @Test
    void keepsRecordOrderPerGroupAcrossManyChunks() {
        BatchBuffer buffer = buffer();
        int n = ChunkSizer.MAX_CHUNK_RECORDS * 3 + 13;
        for (int i = 0; i < n; i++) {
            buffer.add(order("orders", i % 3, i, i % 2 == 0 ? "eu" : "us"), 0);
            if (i % 500 == 0) {
                buffer.submitUnchunked();
            }
        }
        Batch batch = buffer.drain();
        assertEquals(2, batch.groups().size());
        long total = 0;
        for (RecordGroup group : batch.groups()) {
            long previous = -1;
            for (int d = 0; d < group.datums().count(); d++) {
                // the first field is the id (= offset), a zig-zag varint at the datum's start
                long id = readVarLong(group.datums().page(d), group.datums().start(d));
                assertTrue(id > previous, "out of order in " + group.partition() + ": " + id + " after " + previous);
                assertEquals(group.partition().values().get(0), id % 2 == 0 ? "eu" : "us");
                previous = id;
            }
            total += group.datums().count();
        }
        assertEquals(n, total);
        assertEquals(n, batch.records());
    }

    private static long readVarLong(byte[] bytes, int pos) {
        long raw = 0;
        int shift = 0;
        byte b;
        do {
            b = bytes[pos++];
            raw |= (long) (b & 0x7F) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        return (raw >>> 1) ^ -(raw & 1);
    }

    @Test
    void flushPolicyClosesOnRecordsBytesOrAge() {
        BatchBuffer buffer = buffer();
        FlushPolicy byRecords = new FlushPolicy(2, Long.MAX_VALUE, Long.MAX_VALUE, 0, Map.of());
        assertNull(byRecords.flushReason(buffer, 0), "an empty batch never flushes");
        buffer.add(order("orders", 0, 0, "eu"), 100);
        assertNull(byRecords.flushReason(buffer, 100));
        buffer.add(order("orders", 0, 1, "eu"), 100);
        assertEquals("records", byRecords.flushReason(buffer, 100).description());
        buffer.submitUnchunked();
        FlushPolicy byBytes = new FlushPolicy(100, 1, Long.MAX_VALUE, 0, Map.of());
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (byBytes.flushReason(buffer, 100) == null && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // bytes count once the chunk is encoded in the background
        }
        assertEquals("bytes", byBytes.flushReason(buffer, 100).description());
        FlushPolicy byAge = new FlushPolicy(100, Long.MAX_VALUE, 50, 0, Map.of());
        assertNull(byAge.flushReason(buffer, 149));
        assertEquals("interval", byAge.flushReason(buffer, 150).description());
    }

    @Test
    void anIdleTimeClosesABatchThatNoRecordHasComeToForThatLong() {
        BatchBuffer buffer = buffer();
        FlushPolicy idle = new FlushPolicy(100, Long.MAX_VALUE, 1_000, 50, Map.of());
        assertEquals(-1, idle.msUntilDue(buffer, 0), "nothing to close");
        buffer.add(order("orders", 0, 0, "eu"), 100);
        buffer.add(order("orders", 0, 1, "eu"), 140);
        assertEquals(50, idle.msUntilDue(buffer, 140), "counted from the latest record");
        assertNull(idle.flushReason(buffer, 189));
        FlushPolicy.Due due = idle.flushReason(buffer, 190);
        assertEquals(CloseReason.IDLE, due.reason());
        assertEquals("idle time", due.description());

        FlushPolicy off = new FlushPolicy(100, Long.MAX_VALUE, 1_000, 0, Map.of());
        assertNull(off.flushReason(buffer, 1_099), "0: no idle limit");
        assertEquals(960, off.msUntilDue(buffer, 140), "the interval alone, from the first record");
        for (long offset = 2, at = 180; at < 1_100; offset++, at += 40) {
            buffer.add(order("orders", 0, offset, "eu"), at);
            assertNull(idle.flushReason(buffer, at), "a record every 40 ms keeps the batch open at " + at);
        }
        assertEquals(CloseReason.INTERVAL, idle.flushReason(buffer, 1_100).reason(),
                "the interval still bounds a batch that keeps taking records");
    }

    @Test
    void aTableWithARecordLimitOfItsOwnClosesTheBatch() {
        BatchBuffer buffer = buffer();
        FlushPolicy policy = new FlushPolicy(1_000, Long.MAX_VALUE, Long.MAX_VALUE, 0, Map.of("dim_customers", 3L));
        for (long offset = 0; offset < 5; offset++) {
            buffer.add(order("orders", 0, offset, "eu"), 0);
        }
        buffer.add(order("customers", 0, 0, "eu"), 0);
        buffer.add(order("customers", 0, 1, "eu"), 0);
        assertEquals(5, buffer.tableRecordCount("orders"));
        assertNull(policy.flushReason(buffer, 0), "5 orders, 2 customers: under both limits");
        buffer.add(order("customers", 0, 2, "eu"), 0);
        assertEquals("records of table dim_customers", policy.flushReason(buffer, 0).description(),
                "counted as records are taken, not when they are encoded");
        buffer.drain();
        assertEquals(0, buffer.tableRecordCount("dim_customers"), "a new batch counts from zero");
    }

    @Test
    void badRecordsAreSetAsideWhenTheTaskReportsThemAndTheRestLands() {
        BatchBuffer buffer = new BatchBuffer(ConnectInput.INSTANCE, byTopic(),
                byRegion(), "sink-t0-run", POOL, 3, true, null);
        Schema noRegion = SchemaBuilder.struct().name("Order").field("id", Schema.INT64_SCHEMA).build();
        buffer.add(order("orders", 0, 0, "eu"), 0);
        buffer.add(new SinkRecord("orders", 0, null, null, noRegion, new Struct(noRegion).put("id", 1L), 1), 0);
        buffer.add(new SinkRecord("orders", 0, null, null, null, null, 2), 0);
        buffer.add(order("orders", 0, 3, "us"), 0);
        Batch batch = buffer.drain();

        assertEquals(2, batch.records(), "two records land");
        assertEquals(2, batch.groups().size());
        assertEquals(List.of(1L, 2L), batch.rejected().stream().map(r -> r.record().kafkaOffset()).toList());
        DataException first = batch.rejected().get(0).error();
        assertTrue(first.getMessage().startsWith("Record topic=orders partition=0 offset=1: "), first.getMessage());
        assertTrue(first.getMessage().contains("'region'"), first.getMessage());
        assertTrue(batch.rejected().get(1).error().getMessage().contains("tombstone"));
        assertEquals(Map.of(new TopicPartition("orders", 0), 4L), batch.nextOffsets(),
                "the offsets cover the rejected records too: they are handled");
    }

    @Test
    void aTableThatRefusesASchemaRejectsItsRecordsWithoutAskingAgain() {
        int[] admissions = {0};
        TableLayouts layouts = new TableLayouts("db", table -> List.of(), (table, schema, spec) -> {
            admissions[0]++;
            throw new DataException("column id is long in the table but string in the records");
        });
        BatchBuffer buffer = new BatchBuffer(ConnectInput.INSTANCE, byTopic(), layouts, "sink-t0-run",
                POOL, 3, true, null);
        for (long offset = 0; offset < 600; offset++) {
            buffer.add(order("orders", 0, offset, "eu"), 0);
        }
        Batch batch = buffer.drain();
        assertEquals(0, batch.records());
        assertEquals(600, batch.rejected().size());
        assertEquals(1, admissions[0], "the refusal is remembered per schema");
    }

    /** Routes each record to the table named after its topic. */
    static TableRouter byTopic() {
        return new TableRouter(Map.of(), null, null, "${topic}", Set.of());
    }
}
