package io.hivesink.metastore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.compact.DayPartition;

/** A partition moved only from where it is said to be: the one write of a compaction's swap and its mendings. */
class PartitionMoveTest {

    @TempDir
    java.nio.file.Path dir;
    private DayPartition day;
    private String current;
    private String next;

    @BeforeEach
    void setUp() throws IOException {
        day = new DayPartition(new InMemoryMetastore(), dir);
        current = day.current.toString();
        next = day.next.toString();
    }

    private PartitionMove.Result move(String from, String to) {
        return PartitionMove.ifAt(day.metastore, "db", "orders", DayPartition.DAY, from, to);
    }

    @Test
    void movesAPartitionFoundWhereItWasSaidToBe() {
        PartitionMove.Result moved = move(current, next);
        assertEquals(PartitionMove.Found.MOVED, moved.found());
        assertEquals(current, moved.location(), "where it was");
        assertEquals(next, day.location());
        assertTrue(moved.atTarget());
    }

    @Test
    void leavesAPartitionAlreadyMovedOrElsewhereAsItIs() {
        move(current, next);
        assertEquals(PartitionMove.Found.AT_TARGET, move(current, next).found(), "made twice");
        PartitionMove.Result elsewhere = move(current, day.current + "-other");
        assertEquals(PartitionMove.Found.ELSEWHERE, elsewhere.found());
        assertFalse(elsewhere.atTarget());
        assertEquals(next, elsewhere.location());
        assertEquals(next, day.location(), "not written");
    }

    @Test
    void findsADroppedPartitionGone() {
        day.metastore.partitions.get("db.orders").clear(); // dropped
        PartitionMove.Result gone = move(current, next);
        assertEquals(PartitionMove.Found.GONE, gone.found());
        assertNull(gone.location());
        assertNull(PartitionMove.locationOf(day.metastore, "db", "orders", DayPartition.DAY));
    }
}
