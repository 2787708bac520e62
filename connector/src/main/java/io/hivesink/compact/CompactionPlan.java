package io.hivesink.compact;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of a partition's files a compaction merges, and into which files: the files below the target size, when there
 * are at least the minimum number of them, in as few files as the target allows ({@code ceil(bytes / target)} per
 * kind), each a run of files in batch order whose bytes are about the same. Files of different kinds (an Avro file's
 * writer schema and codec) never share a merged file; a file at or above the target is left as it is, and so is a run
 * of one file. Pure: the caller lists the files, in batch order, and names their kinds.
 */
public final class CompactionPlan {

    /** A file of the partition: its name, size and kind (files merge only with files of their kind). */
    public record SourceFile(String name, long bytes, String kind) {
    }

    /** One merged file to be: the files it replaces, in batch order. */
    public record Output(List<SourceFile> files) {

        public Output {
            files = List.copyOf(files);
        }

        public long bytes() {
            return files.stream().mapToLong(SourceFile::bytes).sum();
        }
    }

    private CompactionPlan() {
    }

    /**
     * Plans the merge of a partition's files.
     *
     * @param inBatchOrder every file of the partition, oldest batch first
     * @param targetBytes  the size merged files should have, about
     * @param minFiles     how many files below the target a partition needs for a compaction to be worth it
     * @return the merged files to write, none if the partition is left as it is
     */
    public static List<Output> plan(List<SourceFile> inBatchOrder, long targetBytes, int minFiles) {
        if (targetBytes <= 0 || minFiles < 2) {
            throw new IllegalArgumentException("A compaction needs a positive target and at least 2 files, not "
                    + targetBytes + " bytes and " + minFiles + " files");
        }
        Map<String, List<SourceFile>> smallByKind = new LinkedHashMap<>();
        int small = 0;
        for (SourceFile file : inBatchOrder) {
            if (file.bytes() < targetBytes) {
                smallByKind.computeIfAbsent(file.kind(), k -> new ArrayList<>()).add(file);
                small++;
            }
        }
        if (small < minFiles) {
            return List.of();
        }
        List<Output> outputs = new ArrayList<>();
        for (List<SourceFile> files : smallByKind.values()) {
            for (Output run : runs(files, targetBytes)) {
                if (run.files().size() > 1) {
                    outputs.add(run);
                }
            }
        }
        return outputs;
    }

    /**
     * Cuts files into {@code ceil(bytes / target)} runs of about equal bytes: a run ends before the file whose middle
     * lies past the run's share, so no run is more than half a file off its share.
     */
    private static List<Output> runs(List<SourceFile> files, long targetBytes) {
        long total = files.stream().mapToLong(SourceFile::bytes).sum();
        long count = Math.max(1, (total + targetBytes - 1) / targetBytes);
        List<Output> runs = new ArrayList<>();
        List<SourceFile> run = new ArrayList<>();
        double share = (double) total / count;
        double before = 0;
        for (SourceFile file : files) {
            boolean pastShare = before + file.bytes() / 2.0 > (runs.size() + 1) * share;
            if (!run.isEmpty() && runs.size() < count - 1 && pastShare) {
                runs.add(new Output(run));
                run = new ArrayList<>();
            }
            run.add(file);
            before += file.bytes();
        }
        runs.add(new Output(run));
        return runs;
    }
}
