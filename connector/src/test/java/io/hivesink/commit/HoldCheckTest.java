package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.hivesink.commit.HoldCheck.Landing;
import io.hivesink.commit.TaskState.Hold;

class HoldCheckTest {

    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final TaskState OWNED = TaskState.EMPTY.claimed("c-t0-a", List.of(TP), Map.of(TP, 5L));
    private static final Path DAY_29 = new Path("hdfs://nn/w/partitions_of_orders/day=2026-11-29/0");
    private static final List<Landing> LANDINGS = List.of(
            new Landing("orders", "day=2026-11-28", new Path("hdfs://nn/w/partitions_of_orders/day=2026-11-28/0")),
            new Landing("orders", "day=2026-11-29", DAY_29));

    @Test
    void aHeldPartitionRefusesTheBatchAndOtherPartitionsOrTablesDoNot() {
        HoldCheck.require("b-1", LANDINGS, OWNED); // no holds
        TaskState held = OWNED.withHold(new Hold("orders", "day=2026-11-29", "compact-c-1", null));
        BatchHeldException e = assertThrows(BatchHeldException.class, () -> HoldCheck.require("b-1", LANDINGS, held));
        assertTrue(e.getMessage().startsWith("Batch b-1 lands in partition day=2026-11-29 of table orders, which "
                + "compaction compact-c-1 holds"), e.getMessage());
        HoldCheck.require("b-1", LANDINGS, OWNED.withHold(new Hold("orders", "day=2026-11-27", "compact-c-1", null)));
        HoldCheck.require("b-1", LANDINGS, OWNED.withHold(new Hold("refunds", "day=2026-11-29", "compact-c-1", null)));
    }

    @Test
    void aReleasedHoldRefusesABatchStagedForTheDirectoryThePartitionLeft() {
        Path next = new Path("hdfs://nn/w/partitions_of_orders/day=2026-11-29/compact-c-1");
        TaskState moved = OWNED.withHold(new Hold("orders", "day=2026-11-29", "compact-c-1", next.toString()));
        BatchHeldException e = assertThrows(BatchHeldException.class, () -> HoldCheck.require("b-2", LANDINGS, moved));
        assertEquals("Batch b-2 was staged for " + DAY_29 + ", but compaction compact-c-1 moved partition "
                + "day=2026-11-29 of table orders to " + next + "; the batch is staged again there", e.getMessage());
        HoldCheck.require("b-2", List.of(new Landing("orders", "day=2026-11-29", next)), moved); // staged there
    }

    @Test
    void holdsOutliveEveryOtherChangeOfTheStateAndGoOnlyWithTheirCompaction() {
        Hold hold = new Hold("orders", "day=2026-11-29", "compact-c-1", null);
        TaskState state = OWNED.withHold(hold);
        TaskState changed = state.withIntent(new TaskState.Intent("b-3", "/m")).completed("b-3", Map.of(TP, 9L))
                .caughtUp(List.of(TP), 100L).movedTo(Map.of(TP, 10L)).released(List.of(TP))
                .claimed("c-t0-b", List.of(TP), Map.of()).droppedIntent("b-3");
        assertEquals(List.of(hold), changed.holds());
        assertEquals(List.of(hold), changed.withoutHold("orders", "day=2026-11-29", "compact-c-2").holds());
        Hold other = new Hold("orders", "day=2026-11-29", "compact-c-2", "hdfs://nn/x");
        assertEquals(List.of(other), changed.withHold(other).holds(), "one hold per partition");
        assertEquals(List.of(), changed.withoutHold("orders", "day=2026-11-29", "compact-c-1").holds());
    }
}
