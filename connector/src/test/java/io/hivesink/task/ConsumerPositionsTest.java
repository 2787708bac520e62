package io.hivesink.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * What the task takes of a delivery and what it asks the consumer to read again: records come in order from the
 * offset the task expects, whatever Connect's consumer hands over after seeks, claims and drops.
 */
class ConsumerPositionsTest {

    private static final TopicPartition P0 = new TopicPartition("events", 0);
    private static final TopicPartition P1 = new TopicPartition("events", 1);

    private final List<Map<TopicPartition, Long>> seeks = new ArrayList<>();
    private final ConsumerPositions positions = new ConsumerPositions(seeks::add, new ResumePoints(10));

    private static SinkRecord record(TopicPartition tp, long offset) {
        return new SinkRecord(tp.topic(), tp.partition(), null, null, Schema.INT64_SCHEMA, offset, offset);
    }

    @Test
    void recordsOfPartitionsWhoseClaimWaitsAreSkippedUntilTheyAreClaimed() {
        positions.deliveryStarts(Set.of(P1));
        assertTrue(positions.takes(record(P0, 0), r -> false));
        assertFalse(positions.takes(record(P1, 0), r -> false), "P1 is not claimed yet");

        positions.claimedLate(List.of(P1), Map.of(P1, 0L));
        assertTrue(positions.takes(record(P1, 0), r -> false), "claimed during the delivery: taken from here on");
        assertEquals(List.of(), seeks, "a late claim is not sought");
    }

    @Test
    void aConsumerAheadOfTheCommittedOffsetIsSoughtBackAndTheRestOfTheDeliveryOfItSkipped() {
        positions.claimed(Set.of(P0), Map.of(P0, 5L));
        positions.deliveryStarts(Set.of());
        assertFalse(positions.takes(record(P0, 7), r -> false));
        assertEquals(List.of(Map.of(P0, 5L)), seeks);
        assertFalse(positions.takes(record(P0, 8), r -> false), "stale: the seek takes effect at the next poll");

        positions.deliveryTaken();
        positions.deliveryStarts(Set.of());
        assertTrue(positions.takes(record(P0, 5), r -> false), "read again from the committed offset");
    }

    @Test
    void aRecordPastTheSoughtOffsetInTheNextDeliveryIsStaleAndSoughtOnceMore() {
        positions.seek(Map.of(P0, 3L));
        positions.deliveryStarts(Set.of()); // Connect hands the same records again: fetched before the seek
        assertFalse(positions.takes(record(P0, 6), r -> r.kafkaOffset() > 3), "ahead of the sought offset");
        assertEquals(List.of(Map.of(P0, 3L), Map.of(P0, 3L)), seeks, "sought there once more");
        assertFalse(positions.takes(record(P0, 3), r -> false), "the rest of the delivery of P0 is skipped");

        positions.deliveryStarts(Set.of());
        assertTrue(positions.takes(record(P0, 3), r -> false), "from the sought offset on, in order, taken");
    }

    @Test
    void droppedRecordsAreReadAgainFromTheRecordBeforeWhereKafkaWasToldLess() {
        assertEquals(Map.of(P0, new OffsetAndMetadata(4), P1, new OffsetAndMetadata(2)),
                positions.toReport(Map.of(P0, new OffsetAndMetadata(4), P1, new OffsetAndMetadata(9)),
                        Map.of(P0, 6L, P1, 2L)),
                "no offset ahead of the consumer's position, and none for what the metastore does not hold");

        positions.readAgain(Map.of(P0, 6L, P1, 2L));
        assertEquals(List.of(Map.of(P0, 5L, P1, 2L)), seeks, "P0 from 5, read through, since Kafka was told 4");
    }

    @Test
    void aClosedPartitionIsForgotten() {
        positions.toReport(Map.of(P0, new OffsetAndMetadata(4)), Map.of(P0, 4L));
        positions.claimed(Set.of(P0), Map.of(P0, 4L));
        positions.closed(List.of(P0));

        positions.deliveryStarts(Set.of());
        assertTrue(positions.takes(record(P0, 42), r -> false), "no claim of P0 is checked any more");
        assertEquals(List.of(), seeks);
        positions.readAgain(Map.of(P0, 9L));
        assertEquals(List.of(Map.of(P0, 9L)), seeks, "what Kafka was told of a closed partition no longer counts");
    }

    @Test
    void aPositionReportedAtTheOffsetCommitAheadOfTheCommittedOffsetIsSoughtAtTheNextDelivery() {
        positions.claimed(Set.of(P0), Map.of(P0, 5L));
        positions.deferringSeeks(() -> {
            positions.positionsReported(Map.of(P0, new OffsetAndMetadata(8)));
            return null;
        });
        assertEquals(List.of(), seeks, "not at the offset commit: the partition may be closing");

        positions.deliveryStarts(Set.of());
        assertEquals(List.of(Map.of(P0, 5L)), seeks);
    }
}
