package io.hivesink.bench;

import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import io.hivesink.compact.AvroFileMerger;
import io.hivesink.compact.MergeStep;
import io.hivesink.table.DataFileName;

/**
 * What compaction does to a day's partition, and what it costs beside landing it: {@code --files} small Avro files
 * (576: a day of five-minute batches from two tasks) of the StockQuote rows, each written by hive-sink's container
 * writer (snappy, one thread), then merged by the compaction's merge step (step 2 of docs/compaction.md: blocks
 * copied, not decoded) into files of {@code --target-mb}, on the local filesystem. Prints the files and bytes before
 * and after beside ceil(bytes / target), and the process CPU time of the merge per GB beside that of writing the
 * files, medians of {@code --rounds}.
 *
 * <pre>
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *     io.hivesink.bench.CompactionBenchmark [--files 576] [--records 5000] [--target-mb 64] [--rounds 5]
 * </pre>
 */
public final class CompactionBenchmark {

    public static void main(String[] args) throws Exception {
        int files = CommitCostBenchmark.intArg(args, "--files", 576);
        int records = CommitCostBenchmark.intArg(args, "--records", 5_000);
        long target = CommitCostBenchmark.intArg(args, "--target-mb", 64) * 1024L * 1024;
        int rounds = CommitCostBenchmark.intArg(args, "--rounds", 5);
        java.nio.file.Path work = Files.createTempDirectory("compaction-bench");
        FileSystem fs = FileSystem.getLocal(new Configuration()).getRaw();
        Path day = new Path(work.toUri().toString(), "partitions_of_quotes/dt=2026-11-29/0");
        Path merged = new Path(day.getParent(), "bench-t0-run-k-1");
        Scenario.Input input = Scenario.Input.of(BenchData.DataSet.STOCKQUOTE, records, 7);
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try {
            List<Double> writeMs = new ArrayList<>();
            List<Double> mergeMs = new ArrayList<>();
            List<Double> mergeWallMs = new ArrayList<>();
            MergeStep.Result result = null;
            long bytes = 0;
            for (int round = 0; round < rounds; round++) {
                fs.delete(day, true);
                long cpu = cpuNanos();
                for (int file = 0; file < files; file++) {
                    Path path = new Path(day, DataFileName.of("bench-t0-run-" + file, 1, ".avro"));
                    try (OutputStream out = fs.create(path)) {
                        Scenario.HIVE_SINK.run(input, "snappy", 1, pool, out);
                    }
                    fs.setTimes(path, 1_000L * file, -1); // batch order
                }
                writeMs.add((cpuNanos() - cpu) / 1e6);
                bytes = 0;
                for (FileStatus file : fs.listStatus(day)) {
                    bytes += file.getLen();
                }
                long wall = System.nanoTime();
                cpu = cpuNanos();
                result = new MergeStep(fs, new AvroFileMerger(), ".avro", target, 4).run(day, merged,
                        "bench-t0-run-k-1");
                mergeMs.add((cpuNanos() - cpu) / 1e6);
                mergeWallMs.add((System.nanoTime() - wall) / 1e6);
            }
            FileStatus[] after = fs.listStatus(merged, p -> !p.getName().startsWith("_"));
            long bytesAfter = 0;
            for (FileStatus file : after) {
                bytesAfter += file.getLen();
            }
            double gb = bytes / 1e9;
            System.out.printf(Locale.ROOT, "A day's partition: %d files, %d records, %.1f MB; target %d MB%n", files,
                    (long) files * records, bytes / 1e6, target >> 20);
            System.out.printf(Locale.ROOT, "  after compaction: %d files (ceil(bytes / target) = %d), %.1f MB, %d "
                    + "merged of %d%n", after.length, (bytes + target - 1) / target, bytesAfter / 1e6,
                    result.merged().size(), files);
            System.out.printf(Locale.ROOT, "  writing the small files (hive-sink's Avro writer, snappy, 1 thread): "
                    + "median %.0f ms CPU, %.1f CPU s per GB%n", median(writeMs), median(writeMs) / 1000 / gb);
            System.out.printf(Locale.ROOT, "  merging them (block copy): median %.0f ms CPU (%.0f ms wall), %.2f CPU s"
                    + " per GB, %.1f%% of writing%n", median(mergeMs), median(mergeWallMs), median(mergeMs) / 1000 / gb,
                    100 * median(mergeMs) / median(writeMs));
        } finally {
            pool.shutdownNow();
            fs.delete(new Path(work.toUri().toString()), true);
        }
    }

    /** The process's CPU time: every thread's, the collector's and the compiler's too. */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
