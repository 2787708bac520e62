package io.hivesink.task;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MemoryBudgetTest {

    @Test
    void theBudgetIsTheSmallestAnyTaskSetOrAShareOfTheHeap() {
        MemoryBudget budget = new MemoryBudget(1_000_000);
        assertEquals(400_000, budget.limit(), "nobody set one: 40% of the max heap");
        MemoryBudget.Share auto = budget.join("a", 0);
        assertEquals(400_000, budget.limit());
        MemoryBudget.Share small = budget.join("b", 100_000);
        MemoryBudget.Share large = budget.join("c", 900_000);
        assertEquals(100_000, budget.limit(), "a connector cannot raise the limit others count on");
        small.close();
        assertEquals(400_000, budget.limit());
        auto.close();
        assertEquals(900_000, budget.limit());
        large.close();
    }

    @Test
    void onceFullTheTasksHoldingAtLeastTheAverageGiveMemoryBack() {
        MemoryBudget budget = new MemoryBudget(1_000_000);
        MemoryBudget.Share big = budget.join("big", 1_000);
        MemoryBudget.Share mid = budget.join("mid", 1_000);
        MemoryBudget.Share small = budget.join("small", 1_000);
        MemoryBudget.Share idle = budget.join("idle", 1_000);
        big.hold(500);
        mid.hold(300);
        small.hold(100);
        assertFalse(big.full(), "900 of 1,000");
        assertFalse(big.shouldRelease());
        small.hold(250);
        assertTrue(small.full(), "1,050 of 1,000");
        assertTrue(big.shouldRelease(), "above the average of the three holders (350)");
        assertFalse(mid.shouldRelease(), "300 is below the average: it holds back");
        assertFalse(small.shouldRelease());
        assertFalse(idle.shouldRelease(), "holds nothing, gives nothing back");
        assertTrue(budget.describe().endsWith(", held by 3 tasks"), budget.describe());

        big.hold(0); // committed
        assertFalse(mid.full());
        assertTrue(mid.hasRoom(), "550 is below 90% of 1,000");
        mid.hold(700);
        assertFalse(mid.full(), "950 of 1,000");
        assertFalse(mid.hasRoom(), "but not below 90% of it: tasks held back stay back");
    }

    @Test
    void aLoneTaskOverTheBudgetGivesItsMemoryBack() {
        MemoryBudget budget = new MemoryBudget(1_000_000);
        MemoryBudget.Share only = budget.join("only", 1_000);
        only.hold(5_000);
        assertTrue(only.shouldRelease(), "one batch larger than the budget closes at once");
        only.close();
        assertEquals(0, budget.used());
    }
}
