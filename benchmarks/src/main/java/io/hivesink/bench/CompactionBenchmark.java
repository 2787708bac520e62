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
import io.hivesink.compact.FileMerger;
import io.hivesink.compact.MergeStep;
import io.hivesink.compact.OrcFileMerger;
import io.hivesink.compact.ParquetFileMerger;
import io.hivesink.orc.OrcMerge;
import io.hivesink.parquet.ParquetMerge;
import io.hivesink.table.DataFileName;

/**
 * What compaction does to a day's partition, and what it costs beside landing it: {@code --files} small files (576:
 * a day of five-minute batches from two tasks) of the StockQuote rows in {@code --format} (avro, parquet or orc),
 * each written by hive-sink's writer of that format (snappy, one thread), then merged by the compaction's merge step
 * (step 2 of docs/compaction.md: Avro blocks copied, not decoded; Parquet and ORC values encoded again into full row
 * groups and stripes of the default sizes) into files of {@code --target-mb}, on the local filesystem. Prints the
 * files and bytes before and after beside ceil(bytes / target), and the process CPU time of the
 * merge per GB beside that of writing the files, medians of {@code --rounds}.
 *
 * <pre>
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *     io.hivesink.bench.CompactionBenchmark [--format avro] [--files 576] [--records 5000] [--target-mb 64] \
 *     [--rounds 5]
 * </pre>
 */
public final class CompactionBenchmark {

    public static void main(String[] args) throws Exception {
        int files = CommitCostBenchmark.intArg(args, "--files", 576);
        int records = CommitCostBenchmark.intArg(args, "--records", 5_000);
        long target = CommitCostBenchmark.intArg(args, "--target-mb", 64) * 1024L * 1024;
        int rounds = CommitCostBenchmark.intArg(args, "--rounds", 5);
        Format format = Format.valueOf(CommitCostBenchmark.stringArg(args, "--format", "avro")
                .toUpperCase(Locale.ROOT));
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
                    Path path = new Path(day, DataFileName.of("bench-t0-run-" + file, 1, format.merger().extension()));
                    try (OutputStream out = fs.create(path)) {
                        format.writer.run(input, "snappy", 1, pool, out);
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
                result = new MergeStep(fs, format.merger(), target, 4).run(day, merged,
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
            System.out.printf(Locale.ROOT, "A day's partition of %s: %d files, %d records, %.1f MB; target %d MB%n",
                    format.name().toLowerCase(Locale.ROOT), files, (long) files * records, bytes / 1e6, target >> 20);
            System.out.printf(Locale.ROOT, "  after compaction: %d files (ceil(bytes / target) = %d), %.1f MB, %d "
                    + "merged of %d%n", after.length, (bytes + target - 1) / target, bytesAfter / 1e6,
                    result.merged().size(), files);
            System.out.printf(Locale.ROOT, "  writing the small files (hive-sink's writer, snappy, 1 thread): "
                    + "median %.0f ms CPU, %.1f CPU s per GB%n", median(writeMs), median(writeMs) / 1000 / gb);
            System.out.printf(Locale.ROOT, "  merging them (%s): median %.0f ms CPU (%.0f ms wall), %.2f CPU s per GB,"
                    + " %.1f%% of writing%n", format.how, median(mergeMs), median(mergeWallMs),
                    median(mergeMs) / 1000 / gb, 100 * median(mergeMs) / median(writeMs));
        } finally {
            pool.shutdownNow();
            fs.delete(new Path(work.toUri().toString()), true);
        }
    }

    /** A format: hive-sink's writer of its small files, and its merger with the connector's default sizes. */
    private enum Format {
        AVRO(Scenario.HIVE_SINK, "block copy"),
        PARQUET(Scenario.PARQUET_HIVE_SINK, "values encoded again"),
        ORC(Scenario.ORC_HIVE_SINK, "rows written again");

        final Scenario writer;
        final String how;

        Format(Scenario writer, String how) {
            this.writer = writer;
            this.how = how;
        }

        FileMerger merger() {
            return switch (this) {
                case AVRO -> new AvroFileMerger();
                case PARQUET -> new ParquetFileMerger(new ParquetMerge("snappy", true, 128L << 20, 1 << 20));
                case ORC -> new OrcFileMerger(new OrcMerge("snappy", 64L << 20));
            };
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
