package io.hivesink.done;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** A table's watermark from what its Kafka partitions have landed, and the watermarks a task keeps. */
class WatermarksTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);

    /** The partitions of topic a feed the table. */
    private static final Predicate<TopicPartition> A = Set.of(A0, A1)::contains;

    @Test
    void theLeastOfTheFeedingPartitionsLessTheLateness() {
        Map<TopicPartition, Long> landed = Map.of(A0, 5_000L, A1, 3_000L, B0, 1_000L);
        assertEquals(3_000L - 500, Watermarks.of(landed, A, 500), "b does not feed the table");
        assertEquals(1_000L - 500, Watermarks.of(landed, tp -> true, 500));
    }

    @Test
    void aFeedingPartitionWithNoEventTimeOrNoPartitionAtAllGivesNone() {
        assertEquals(Watermarks.NONE, Watermarks.of(Map.of(A0, 5_000L, A1, Watermarks.NONE), A, 0));
        assertEquals(Watermarks.NONE, Watermarks.of(Map.of(B0, 5_000L), A, 0), "nothing feeds it");
        assertEquals(5_000L, Watermarks.of(Map.of(A0, 5_000L, B0, Watermarks.NONE), A, 0),
                "a partition that does not feed it holds nothing back");
    }

    @Test
    void aTableKeptHasNoneUntilKnownAndNeverGoesBack() {
        Map<TopicPartition, Long> landed = new HashMap<>(Map.of(A0, 10_000L, A1, Watermarks.NONE));
        TableWatermarks watermarks = new TableWatermarks(table -> table.equals("ta") ? A : tp -> true,
                table -> table.equals("ta") ? 1_000 : 0, table -> null);
        assertEquals(true, watermarks.track("ta"));
        assertEquals(false, watermarks.track("ta"), "once");
        watermarks.track("all");
        watermarks.update(landed);
        assertEquals(Watermarks.NONE, watermarks.of("ta"));

        landed.put(A1, 8_000L);
        landed.put(B0, 20_000L);
        watermarks.update(landed);
        assertEquals(7_000L, watermarks.of("ta"));
        assertEquals(8_000L, watermarks.of("all"));

        landed.put(A1, 6_000L); // a state read that knows less (the partition's new owner has not committed yet)
        landed.put(new TopicPartition("b", 1), Watermarks.NONE); // a partition added to a topic
        watermarks.update(landed);
        assertEquals(7_000L, watermarks.of("ta"), "never back");
        assertEquals(8_000L, watermarks.of("all"));
        assertEquals(Watermarks.NONE, watermarks.of("untracked"));
    }

    @Test
    void aPartitionOfASubscribedTopicInNoStateYetHoldsTheTableBack() {
        TableWatermarks watermarks = new TableWatermarks(table -> tp -> true, table -> 0, table -> null);
        watermarks.track("t");
        watermarks.partitionsKnown(Set.of(A0, A1, B0));
        watermarks.update(Map.of(A0, 10_000L, B0, 9_000L)); // A1 not claimed by any task yet
        assertEquals(Watermarks.NONE, watermarks.of("t"));
        watermarks.update(Map.of(A0, 10_000L, A1, 12_000L, B0, 9_000L));
        assertEquals(9_000L, watermarks.of("t"));
    }

    @Test
    void noWatermarkBeforeThePartitionsAreKnownWhereTheTaskReadsThem() {
        TableWatermarks watermarks = new TableWatermarks(table -> tp -> true, table -> 0, table -> null);
        watermarks.requirePartitionsKnown();
        watermarks.track("t");
        watermarks.update(Map.of(A0, 10_000L, B0, 9_000L)); // the first read failed: A1 may be unclaimed
        assertEquals(Watermarks.NONE, watermarks.of("t"));
        watermarks.partitionsKnown(Set.of(A0, B0));
        watermarks.update(Map.of(A0, 10_000L, B0, 9_000L));
        assertEquals(9_000L, watermarks.of("t"));
    }
}
