package io.hivesink.compact;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import io.hivesink.compact.CompactionPlan.Output;
import io.hivesink.compact.CompactionPlan.SourceFile;
import io.hivesink.table.DataFileName;

/**
 * Step 2 of a compaction ({@code docs/compaction.md}): lists the partition's current directory, plans the merge and
 * writes the partition's next generation into a directory of its own, invisible to readers until the partition's
 * location is swapped to it: the merged files ({@code part-<compaction id>-<nnnnn>}), and a copy of every file left
 * as it is, under its own name. Every file is synced. Repeatable: a run starts from an empty directory, so what an
 * earlier run left (over another listing) never joins it.
 */
public final class MergeStep {

    private final FileSystem fs;
    private final FileMerger merger;
    private final long targetBytes;
    private final int minFiles;

    public MergeStep(FileSystem fs, FileMerger merger, long targetBytes, int minFiles) {
        this.fs = fs;
        this.merger = merger;
        this.targetBytes = targetBytes;
        this.minFiles = minFiles;
    }

    /** A merged file of the next generation, and the names of the files it replaces, in batch order. */
    public record MergedFile(Path path, List<String> sources, long records, long bytes) {

        public MergedFile {
            sources = List.copyOf(sources);
        }
    }

    /**
     * What the step did: the listing it worked from, the merged files and the copies written. {@code skipped} says
     * why nothing was written, or is null.
     */
    public record Result(PartitionFiles snapshot, List<MergedFile> merged, List<Path> copied, String skipped) {

        public Result {
            merged = List.copyOf(merged);
            copied = List.copyOf(copied);
        }

        static Result skipped(PartitionFiles snapshot, String why) {
            return new Result(snapshot, List.of(), List.of(), why);
        }
    }

    /**
     * Writes the generation that replaces {@code current}'s files into {@code next}, unless the partition is not
     * worth it or not the connector's alone.
     */
    public Result run(Path current, Path next, String compactionId) throws IOException {
        PartitionFiles snapshot = PartitionFiles.list(fs, current);
        if (!snapshot.foreign().isEmpty()) {
            return Result.skipped(snapshot, "it holds files hive-sink did not write: " + snapshot.foreign());
        }
        List<SourceFile> sources = new ArrayList<>(snapshot.files().size());
        for (FileStatus file : snapshot.files()) {
            String kind = file.getLen() < targetBytes ? merger.kindOf(fs, file) : "";
            sources.add(new SourceFile(file.getPath().getName(), file.getLen(), kind));
        }
        List<Output> plan = CompactionPlan.plan(sources, targetBytes, minFiles);
        if (plan.isEmpty()) {
            return Result.skipped(snapshot, "fewer than " + minFiles + " of its " + sources.size()
                    + " files are below the target of " + targetBytes + " bytes, or none share a kind");
        }
        Map<String, FileStatus> byName = new HashMap<>();
        snapshot.files().forEach(file -> byName.put(file.getPath().getName(), file));
        fs.delete(next, true); // what a crashed run left: its listing may have been another
        fs.mkdirs(next);
        List<MergedFile> merged = new ArrayList<>(plan.size());
        Set<String> replaced = new HashSet<>();
        for (Output output : plan) {
            List<FileStatus> files = new ArrayList<>(output.files().size());
            List<String> names = new ArrayList<>(output.files().size());
            for (SourceFile source : output.files()) {
                files.add(byName.get(source.name()));
                names.add(source.name());
            }
            replaced.addAll(names);
            Path path = new Path(next, DataFileName.of(compactionId, merged.size() + 1, merger.extension()));
            FileMerger.Merged result;
            try (FSDataOutputStream out = fs.create(path, true)) {
                result = merger.merge(fs, files, out);
                out.hsync();
            }
            merged.add(new MergedFile(path, names, result.records(), result.bytes()));
        }
        List<Path> copied = new ArrayList<>();
        for (FileStatus file : snapshot.files()) {
            if (!replaced.contains(file.getPath().getName())) {
                copied.add(copy(file.getPath(), next));
            }
        }
        return new Result(snapshot, merged, copied, null);
    }

    /** Copies a file into {@code dir} under its own name, synced; what a late arrival and a file left as is take. */
    public Path copy(Path file, Path dir) throws IOException {
        Path target = new Path(dir, file.getName());
        try (InputStream in = fs.open(file); FSDataOutputStream out = fs.create(target, true)) {
            in.transferTo(out);
            out.hsync();
        }
        return target;
    }
}
