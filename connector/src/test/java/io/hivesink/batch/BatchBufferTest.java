package io.hivesink.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

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

    static BatchBuffer buffer() {
        return new BatchBuffer(new TableRouter(Map.of("customers", "dim_customers")),
                new TableLayouts("db", List.of("region")), "sink-t0-run");
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
        assertTrue(buffer.byteCount() > 0);

        Batch batch = buffer.drain();
        assertEquals("sink-t0-run-1", batch.id());
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
        BatchBuffer buffer = buffer();
        DataException tombstone = assertThrows(DataException.class,
                () -> buffer.add(new SinkRecord("orders", 2, null, null, ORDER, null, 77), 0));
        assertTrue(tombstone.getMessage().startsWith("Record topic=orders partition=2 offset=77: "),
                tombstone.getMessage());
        assertTrue(tombstone.getMessage().contains("tombstone"), tombstone.getMessage());

        DataException schemaless = assertThrows(DataException.class,
                () -> buffer.add(new SinkRecord("orders", 0, null, null, null, Map.of("id", 1), 3), 0));
        assertTrue(schemaless.getMessage().contains("offset=3"), schemaless.getMessage());
        assertTrue(schemaless.getMessage().contains("schemas.enable=true"), schemaless.getMessage());

        DataException primitive = assertThrows(DataException.class,
                () -> buffer.add(new SinkRecord("orders", 0, null, null, Schema.STRING_SCHEMA, "x", 4), 0));
        assertTrue(primitive.getMessage().contains("not a Struct"), primitive.getMessage());

        Schema noRegion = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build();
        DataException missingPartitionField = assertThrows(DataException.class, () -> buffer.add(
                new SinkRecord("orders", 0, null, null, noRegion, new Struct(noRegion).put("id", 1L), 5), 0));
        assertTrue(missingPartitionField.getMessage().contains("offset=5"), missingPartitionField.getMessage());
        assertTrue(missingPartitionField.getMessage().contains("'region'"), missingPartitionField.getMessage());
        assertTrue(buffer.isEmpty(), "failed records are not buffered");
    }

    @Test
    void flushPolicyClosesOnRecordsBytesOrAge() {
        BatchBuffer buffer = buffer();
        FlushPolicy byRecords = new FlushPolicy(2, Long.MAX_VALUE, Long.MAX_VALUE);
        assertNull(byRecords.flushReason(buffer, 0), "an empty batch never flushes");
        buffer.add(order("orders", 0, 0, "eu"), 100);
        assertNull(byRecords.flushReason(buffer, 100));
        buffer.add(order("orders", 0, 1, "eu"), 100);
        assertEquals("records", byRecords.flushReason(buffer, 100));
        assertEquals("bytes", new FlushPolicy(100, 1, Long.MAX_VALUE).flushReason(buffer, 100));
        FlushPolicy byAge = new FlushPolicy(100, Long.MAX_VALUE, 50);
        assertNull(byAge.flushReason(buffer, 149));
        assertEquals("interval", byAge.flushReason(buffer, 150));
    }
}
