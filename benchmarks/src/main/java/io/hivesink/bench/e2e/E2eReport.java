package io.hivesink.bench.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

import io.hivesink.bench.BenchData.DataSet;
import io.hivesink.bench.WriterBenchmark;
import io.hivesink.bench.e2e.E2eConfiguration.Format;
import io.hivesink.bench.e2e.E2eConfiguration.Input;
import io.hivesink.bench.e2e.E2eConfiguration.Mode;
import io.hivesink.bench.e2e.E2eConfiguration.Sink;
import io.hivesink.bench.e2e.E2eConfiguration.Store;
import io.hivesink.bench.e2e.E2eRun.Conditions;
import io.hivesink.bench.e2e.E2eRun.Measurement;
import io.hivesink.bench.e2e.E2eRun.Outside;
import io.hivesink.bench.e2e.ThreadCpu.CpuSplit;

/**
 * The benchmark's figures: per configuration the medians over rounds, and two ratios paired within a round (so that
 * the drift of a noisy machine falls on both sides): hive-sink against Iceberg's sink on the same data set and number
 * of tasks, and the pipelined task against the serial one in the same configuration.
 */
final class E2eReport {

    static final String RUN_HEADER = "sink,dataset,input,tasks,batch_records,mode,round,records,seconds,"
            + "records_per_s,mb_per_s,cpu_s_per_m,machine_busy,peak_heap_mb,files,commits,close_stall_s,commit_ms,"
            + "cpu_task_s,cpu_sink_s,cpu_hdfs_s,cpu_jit_s,cpu_gc_s,warm_share,watch_ms,codec,cpu_outside_s,"
            + "cpu_metastore_s,format,store";
    /** The columns every runs.csv this benchmark wrote has; later columns may be missing and read as unknown. */
    private static final String FIRST_COLUMNS = RUN_HEADER.substring(0, RUN_HEADER.indexOf(",commit_ms"));
    static final String SUMMARY_HEADER = "sink,dataset,input,tasks,batch_records,mode,rounds,median_records_per_s,"
            + "median_mb_per_s,median_cpu_s_per_m,median_peak_heap_mb,median_files,median_seconds,median_close_stall_s,"
            + "median_commit_ms,median_cpu_task_s_per_m,median_cpu_sink_s_per_m,median_cpu_hdfs_s_per_m,"
            + "median_cpu_jit_s_per_m,median_cpu_gc_s_per_m,median_cpu_rest_s_per_m,format,store";

    private final Map<E2eConfiguration, List<Measurement>> byConfiguration = new TreeMap<>(E2eConfiguration.LISTING);

    E2eReport(List<Measurement> measurements) {
        for (Measurement m : measurements) {
            byConfiguration.computeIfAbsent(m.configuration(), c -> new ArrayList<>()).add(m);
        }
    }

    static String runRow(Measurement m) {
        E2eConfiguration c = m.configuration();
        CpuSplit split = m.cpuSplit();
        return String.format(Locale.ROOT,
                "%s,%s,%s,%d,%d,%s,%d,%d,%.3f,%.0f,%.1f,%.2f,%.2f,%d,%d,%d,%.3f,%.1f,%.3f,%.3f,%.3f,%.3f,%.3f,%s,%d,"
                        + "%s,%.3f,%.3f,%s,%s",
                c.sink().label, c.dataSet(), c.input().label(), c.tasks(), c.batchRecords(), c.mode().label, m.round(),
                m.records(), m.seconds(), m.recordsPerSecond(), m.megabytesPerSecond(), m.cpuSecondsPerMillion(),
                m.machineBusy(), m.peakHeapBytes() >> 20, m.files(), m.commits(), m.closeStallSeconds(),
                m.commitMs(), split.task(), split.sink(), split.hdfs(), split.jit(), split.gc(),
                m.conditions().warmShare(), m.conditions().watchMs(), m.conditions().codec(),
                m.outside().benchmarkJvmSeconds(), m.outside().metastoreSeconds(), c.format().label,
                c.store().label);
    }

    /** The runs of a {@code runs.csv} this benchmark wrote, to report again without running. */
    static List<Measurement> readRuns(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !isRunHeader(lines.get(0))) {
            throw new IOException(csv + " is not a runs.csv of this benchmark: its header is not " + RUN_HEADER);
        }
        List<Measurement> runs = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split(",", -1);
            Sink sink = Arrays.stream(Sink.values()).filter(x -> x.label.equals(f[0])).findFirst().orElseThrow();
            Mode mode = Arrays.stream(Mode.values()).filter(x -> x.label.equals(f[5])).findFirst().orElseThrow();
            // every run before the format was a column wrote Avro
            String formatLabel = f.length > 28 ? f[28] : Format.AVRO.label;
            Format format = Arrays.stream(Format.values()).filter(x -> x.label.equals(formatLabel)).findFirst()
                    .orElseThrow();
            // and to HDFS, before the store was a column
            Store store = f.length > 29 ? Store.of(f[29]) : Store.HDFS;
            E2eConfiguration c = new E2eConfiguration(sink, DataSet.valueOf(f[1].toUpperCase(Locale.ROOT)),
                    Input.valueOf(f[2].toUpperCase(Locale.ROOT)), Integer.parseInt(f[3]), Integer.parseInt(f[4]),
                    mode, format, store);
            long records = Long.parseLong(f[7]);
            double seconds = Double.parseDouble(f[8]);
            double cpu = Double.parseDouble(f[11]) * records / 1e6;
            CpuSplit split = f.length > 22 ? new CpuSplit(Double.parseDouble(f[18]), Double.parseDouble(f[19]),
                    Double.parseDouble(f[20]), Double.parseDouble(f[21]), Double.parseDouble(f[22]), cpu)
                    : CpuSplit.unsplit(cpu);
            boolean conditionsKept = f.length > 27;
            Conditions conditions = conditionsKept ? new Conditions(Double.parseDouble(f[23]),
                    Long.parseLong(f[24]), f[25]) : Conditions.UNKNOWN;
            Outside outside = conditionsKept ? new Outside(Double.parseDouble(f[26]), Double.parseDouble(f[27]))
                    : Outside.UNKNOWN;
            runs.add(new Measurement(c, Integer.parseInt(f[6]), seconds, records,
                    Math.round(Double.parseDouble(f[10]) * 1e6 * seconds), cpu, Double.parseDouble(f[12]),
                    Long.parseLong(f[13]) << 20, Long.parseLong(f[14]), Long.parseLong(f[15]),
                    Double.parseDouble(f[16]), f.length > 17 ? Double.parseDouble(f[17]) : Double.NaN, split,
                    conditions, outside));
        }
        return runs;
    }

    /** This benchmark's header, or that of an earlier version of it, which had fewer columns at the end. */
    private static boolean isRunHeader(String header) {
        return header.startsWith(FIRST_COLUMNS) && RUN_HEADER.startsWith(header)
                && (header.length() == RUN_HEADER.length() || RUN_HEADER.charAt(header.length()) == ',');
    }

    void writeSummary(Path csv) throws IOException {
        StringBuilder out = new StringBuilder(SUMMARY_HEADER).append('\n');
        byConfiguration.forEach((c, runs) -> out.append(String.format(Locale.ROOT,
                "%s,%s,%s,%d,%d,%s,%d,%.0f,%.1f,%.2f,%.0f,%.0f,%.3f,%.3f,%.1f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%s,%s%n",
                c.sink().label, c.dataSet(),
                c.input().label(),
                c.tasks(), c.batchRecords(), c.mode().label, runs.size(), median(runs, Measurement::recordsPerSecond),
                median(runs, Measurement::megabytesPerSecond), median(runs, Measurement::cpuSecondsPerMillion),
                median(runs, m -> m.peakHeapBytes() / 1048576.0), median(runs, m -> m.files()),
                median(runs, Measurement::seconds), median(runs, Measurement::closeStallSeconds),
                median(runs, Measurement::commitMs), median(runs, m -> m.perMillion(CpuSplit::task)),
                median(runs, m -> m.perMillion(CpuSplit::sink)), median(runs, m -> m.perMillion(CpuSplit::hdfs)),
                median(runs, m -> m.perMillion(CpuSplit::jit)), median(runs, m -> m.perMillion(CpuSplit::gc)),
                median(runs, m -> m.perMillion(CpuSplit::rest)), c.format().label, c.store().label)));
        Files.writeString(csv, out, StandardCharsets.UTF_8);
    }

    /** What the runs ran under, one line for each set of conditions among them, as a preamble to the tables. */
    String conditions() {
        StringBuilder out = new StringBuilder();
        byConfiguration.values().stream().flatMap(List::stream).map(Measurement::conditions).distinct()
                .forEach(c -> out.append("Runs: ").append(c.describe()).append(".\n"));
        return out.append('\n').toString();
    }

    /** The Markdown table of medians and paired ratios, as docs/benchmarks.md shows it. */
    String table() {
        StringBuilder out = new StringBuilder();
        out.append("| configuration | median s | records/s | MB/s | worker CPU s per M records | machine busy "
                + "| peak heap MB | files | commits | put() stalled at closes | close to commit | vs Iceberg "
                + "| of the ceiling | pipelined vs serial | early vs at close | S3 vs HDFS |\n");
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        byConfiguration.forEach((c, runs) -> {
            boolean sink = c.sink() != Sink.CONSUMER;
            out.append(String.format(Locale.ROOT,
                    "| %s | %.2f | %,.0f | %.1f | %.2f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                    c.label(),
                    median(runs, Measurement::seconds), median(runs, Measurement::recordsPerSecond),
                    median(runs, Measurement::megabytesPerSecond), median(runs, Measurement::cpuSecondsPerMillion),
                    sink ? String.format(Locale.ROOT, "%.0f%%", 100 * median(runs, Measurement::machineBusy)) : "",
                    sink ? String.format(Locale.ROOT, "%,.0f", median(runs, m -> m.peakHeapBytes() / 1048576.0))
                            : "",
                    sink ? String.format(Locale.ROOT, "%.0f", median(runs, m -> m.files())) : "",
                    sink ? String.format(Locale.ROOT, "%.0f", median(runs, m -> m.commits())) : "",
                    stall(runs), commit(runs), ratio(runs, icebergOf(c)), share(runs, consumerOf(c)),
                    ratio(runs, sameBut(c, Mode.SERIAL)), ratio(runs, sameBut(c, Mode.AT_CLOSE)),
                    ratio(runs, onHdfs(c))));
        });
        out.append("\nput() stalled at closes: seconds the tasks stood still while their batches closed, summed over "
                + "tasks, and that time's share of the tasks' run time (hive-sink's batch-close-stall metric).\n");
        out.append("close to commit: a batch's commit from its close (writing its files, staging, the metastore "
                + "steps), average over batches (hive-sink's commit-time-ms-avg), median over rounds.\n");
        out.append("Ratios are medians over rounds of (records/s of the row / records/s of the other), both measured "
                + "in the same round; above 1 is faster. vs Iceberg pairs runs writing the same format to the same "
                + "store; S3 vs HDFS pairs a run on S3 (S3Proxy) with its twin on HDFS.\n");
        out.append("of the ceiling: the row's records/s as a share of the consumer's (Kafka's ConsumerPerformance "
                + "reading the same topic, no sink), median over rounds of the same-round shares. The consumer's row "
                + "gives the CPU of its whole JVM.\n");
        return out.toString();
    }

    /**
     * Where the worker's CPU went, per configuration: the medians over rounds of each part's CPU seconds per
     * million records (empty for runs of a runs.csv from before the split was measured).
     */
    String cpuTable() {
        StringBuilder out = new StringBuilder();
        out.append("| configuration | worker CPU s per M records | Connect's task threads | the sink's own threads "
                + "| HDFS client | JIT compiler | garbage collector | rest | outside: broker, HDFS, benchmark "
                + "| outside: metastore |\n");
        out.append("|---|---|---|---|---|---|---|---|---|---|\n");
        byConfiguration.forEach((c, runs) -> {
            if (runs.stream().anyMatch(m -> Double.isNaN(m.cpuSplit().task()))) {
                return;
            }
            out.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s |%n",
                    c.label(),
                    median(runs, Measurement::cpuSecondsPerMillion), median(runs, m -> m.perMillion(CpuSplit::task)),
                    median(runs, m -> m.perMillion(CpuSplit::sink)), median(runs, m -> m.perMillion(CpuSplit::hdfs)),
                    median(runs, m -> m.perMillion(CpuSplit::jit)), median(runs, m -> m.perMillion(CpuSplit::gc)),
                    median(runs, m -> m.perMillion(CpuSplit::rest)),
                    perMillionOrBlank(runs, o -> o.benchmarkJvmSeconds()),
                    perMillionOrBlank(runs, o -> o.metastoreSeconds())));
        });
        out.append("\nConnect's task threads run the consumer, the converter and the sink's put(); the sink's own "
                + "threads are hive-sink's encoding pools and commit threads, or Iceberg's committer and workers; "
                + "the HDFS client's threads stream the files (the writing thread's checksums count where it runs); "
                + "rest is the worker's other threads and what threads that ended used after their last sample "
                + "(100 ms apart). CPU seconds per million records, medians over rounds, from each thread's CPU time "
                + "in Linux's /proc. Outside: the CPU of the processes beside the worker on the same cores, this "
                + "benchmark's JVM (the broker, HDFS, the clock) and the metastore, per million records; blank where "
                + "not recorded.\n");
        return out.toString();
    }

    /**
     * A part of the CPU outside the worker per million records, median over rounds; blank if a round did not record
     * it.
     */
    private static String perMillionOrBlank(List<Measurement> runs, ToDoubleFunction<Outside> part) {
        if (runs.stream().anyMatch(m -> Double.isNaN(part.applyAsDouble(m.outside())))) {
            return ""; // a median over the rounds that recorded it would hide that the others did not
        }
        return String.format(Locale.ROOT, "%.2f", median(runs, m -> part.applyAsDouble(m.outside())
                / (m.records() / 1e6)));
    }

    /** The median seconds the tasks stood still at batch closes, with the median share of their run time. */
    private static String stall(List<Measurement> runs) {
        double seconds = median(runs, Measurement::closeStallSeconds);
        if (Double.isNaN(seconds)) {
            return "";
        }
        double share = median(runs, m -> m.closeStallSeconds() / (m.seconds() * m.configuration().tasks()));
        return String.format(Locale.ROOT, "%.1f s (%.0f%%)", seconds, 100 * share);
    }

    private E2eConfiguration icebergOf(E2eConfiguration c) {
        if (c.sink() != Sink.HIVE_SINK) {
            return null;
        }
        return byConfiguration.keySet().stream().filter(o -> o.sink() == Sink.ICEBERG && o.set() == c.set()
                && o.tasks() == c.tasks() && o.format() == c.format() && o.store() == c.store()).findFirst()
                .orElse(null);
    }

    private E2eConfiguration consumerOf(E2eConfiguration c) {
        E2eConfiguration consumer = E2eConfiguration.consumer(c.set());
        return c.sink() != Sink.CONSUMER && byConfiguration.containsKey(consumer) ? consumer : null;
    }

    /** The pipelined configuration's twin in another mode, if it ran. */
    private E2eConfiguration sameBut(E2eConfiguration c, Mode mode) {
        if (c.mode() != Mode.PIPELINED) {
            return null;
        }
        E2eConfiguration other = new E2eConfiguration(c.sink(), c.set(), c.input(), c.tasks(), c.batchRecords(),
                mode, c.format(), c.store());
        return byConfiguration.containsKey(other) ? other : null;
    }

    /** A configuration on S3's twin on HDFS, if it ran. */
    private E2eConfiguration onHdfs(E2eConfiguration c) {
        if (c.store() != Store.S3) {
            return null;
        }
        E2eConfiguration other = new E2eConfiguration(c.sink(), c.set(), c.input(), c.tasks(), c.batchRecords(),
                c.mode(), c.format(), Store.HDFS);
        return byConfiguration.containsKey(other) ? other : null;
    }

    private static String commit(List<Measurement> runs) {
        double ms = median(runs, Measurement::commitMs);
        return Double.isNaN(ms) ? "" : String.format(Locale.ROOT, "%,.0f ms", ms);
    }

    /** The median over rounds of this configuration's records/s over the other's, in rounds both completed. */
    private String ratio(List<Measurement> runs, E2eConfiguration other) {
        double ratio = pairedRatio(runs, other);
        return Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.2fx", ratio);
    }

    /** The same paired ratio, as a share of the other configuration's rate. */
    private String share(List<Measurement> runs, E2eConfiguration other) {
        double ratio = pairedRatio(runs, other);
        return Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.0f%%", 100 * ratio);
    }

    private double pairedRatio(List<Measurement> runs, E2eConfiguration other) {
        if (other == null) {
            return Double.NaN;
        }
        List<Double> ratios = new ArrayList<>();
        for (Measurement m : runs) {
            byConfiguration.get(other).stream().filter(o -> o.round() == m.round()).findFirst()
                    .ifPresent(o -> ratios.add(m.recordsPerSecond() / o.recordsPerSecond()));
        }
        return ratios.isEmpty() ? Double.NaN : WriterBenchmark.median(ratios);
    }

    private static double median(List<Measurement> runs, ToDoubleFunction<Measurement> metric) {
        return WriterBenchmark.median(runs.stream().map(metric::applyAsDouble).toList());
    }

}
