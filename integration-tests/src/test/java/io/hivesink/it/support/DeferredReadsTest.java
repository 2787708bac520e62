package io.hivesink.it.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class DeferredReadsTest {

    /** An engine that answers each statement with one row holding the statement itself, and counts its runs. */
    private final List<List<String>> runs = new ArrayList<>();
    private final DeferredReads.Engine echo = statements -> {
        runs.add(List.of(statements));
        return List.of(statements).stream().map(sql -> List.of(List.of(sql))).toList();
    };

    @Test
    void eachCheckGetsTheResultsOfItsOwnStatementsFromOneRun() throws Exception {
        DeferredReads reads = new DeferredReads();
        List<String> seen = new ArrayList<>();
        reads.add(List.of("a1", "a2"), results -> results.forEach(rows -> seen.add(rows.get(0).get(0))));
        reads.add(List.of("b1"), results -> results.forEach(rows -> seen.add(rows.get(0).get(0))));

        assertEquals(2, reads.run(echo));
        assertEquals(List.of("a1", "a2", "b1"), seen);
        assertEquals(List.of(List.of("a1", "a2", "b1")), runs, "one run of the engine");
        assertEquals(0, reads.run(echo), "nothing left to read");
        assertEquals(1, runs.size());
    }

    @Test
    void aFailingCheckDoesNotKeepTheOthersFromRunningAndEveryFailureIsReported() throws Exception {
        DeferredReads reads = new DeferredReads();
        List<String> ran = new ArrayList<>();
        reads.add(List.of("first"), results -> {
            ran.add("first");
            throw new AssertionError("first is wrong");
        });
        reads.add(List.of("second"), results -> ran.add("second"));
        reads.add(List.of("third"), results -> {
            ran.add("third");
            throw new IllegalStateException("third is wrong");
        });

        AssertionError failed = assertThrows(AssertionError.class, () -> reads.run(echo));
        assertEquals(List.of("first", "second", "third"), ran);
        assertTrue(failed.getMessage().contains("[first]") && failed.getMessage().contains("first is wrong"),
                failed.getMessage());
        assertEquals(1, failed.getSuppressed().length);
        assertTrue(failed.getSuppressed()[0].getMessage().contains("third is wrong"),
                failed.getSuppressed()[0].getMessage());
    }

    @Test
    void aCheckWithoutStatementsIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new DeferredReads().add(List.of(), results -> { }));
    }
}
