package io.hivesink.compact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.hivesink.compact.CompactionPlan.Output;
import io.hivesink.compact.CompactionPlan.SourceFile;

class CompactionPlanTest {

    private static final long MB = 1L << 20;

    private static List<SourceFile> files(int count, long bytes, String kind) {
        List<SourceFile> files = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            files.add(new SourceFile(kind + i, bytes + (i % 7) * 1000L, kind));
        }
        return files;
    }

    @Test
    void aDayOfSmallFilesBecomesAtMostCeilOfBytesOverTarget() {
        List<SourceFile> day = files(576, 3 * MB, "a"); // 576 files of about 3 MB: 1.7 GB
        long bytes = day.stream().mapToLong(SourceFile::bytes).sum();
        long target = 128 * MB;
        List<Output> outputs = CompactionPlan.plan(day, target, 10);
        assertEquals((bytes + target - 1) / target, outputs.size());
        List<SourceFile> merged = new ArrayList<>();
        for (Output output : outputs) {
            merged.addAll(output.files());
            assertTrue(output.bytes() <= target + 3 * MB, "output of " + output.bytes());
            assertTrue(output.bytes() >= bytes / outputs.size() - 3 * MB, "output of " + output.bytes());
        }
        assertEquals(day, merged, "every file once, in batch order");
    }

    @Test
    void leavesLargeFilesAndPartitionsWithTooFewSmallOnes() {
        List<SourceFile> files = new ArrayList<>(files(4, MB, "a"));
        files.add(2, new SourceFile("big", 200 * MB, "a"));
        assertEquals(List.of(), CompactionPlan.plan(files, 128 * MB, 5));
        List<Output> outputs = CompactionPlan.plan(files, 128 * MB, 4);
        assertEquals(1, outputs.size());
        assertEquals(List.of("a0", "a1", "a2", "a3"), outputs.get(0).files().stream().map(SourceFile::name).toList());
    }

    @Test
    void neverMixesKindsAndSkipsRunsOfOne() {
        List<SourceFile> files = new ArrayList<>(files(3, MB, "old"));
        files.addAll(files(1, MB, "evolved"));
        files.addAll(files(3, MB, "new"));
        List<Output> outputs = CompactionPlan.plan(files, 128 * MB, 2);
        assertEquals(2, outputs.size());
        for (Output output : outputs) {
            assertEquals(1, output.files().stream().map(SourceFile::kind).distinct().count());
            assertEquals(3, output.files().size());
        }
    }

    @Test
    void cutsEvenRunsWhenFilesAreLargeAgainstTheTarget() {
        // 10 files of 60% of the target: 6 targets' worth in 6 files of about 1.67 files each, not 10 of one
        List<Output> outputs = CompactionPlan.plan(files(10, 60 * MB, "a"), 100 * MB, 2);
        int merged = outputs.stream().mapToInt(o -> o.files().size()).sum();
        assertTrue(outputs.size() >= 3 && merged >= 6, outputs.size() + " outputs of " + merged + " files");
        assertThrows(IllegalArgumentException.class, () -> CompactionPlan.plan(List.of(), 0, 2));
    }
}
