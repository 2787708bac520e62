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
import io.hivesink.bench.e2e.E2eConfiguration.Input;
import io.hivesink.bench.e2e.E2eConfiguration.Mode;
import io.hivesink.bench.e2e.E2eConfiguration.Sink;
import io.hivesink.bench.e2e.E2eRun.Measurement;

/**
 * The benchmark's figures: per configuration the medians over rounds, and two ratios paired within a round (so that
 * the drift of a noisy machine falls on both sides): hive-sink against Iceberg's sink on the same data set and number
 * of tasks, and the pipelined task against the serial one in the same configuration.
 */
final class E2eReport {

    static final String RUN_HEADER = "sink,dataset,input,tasks,batch_records,mode,round,records,seconds,"
            + "records_per_s,mb_per_s,cpu_s_per_m,machine_busy,peak_heap_mb,files,commits,close_stall_s,commit_ms";
    /** The header of runs.csv before commit_ms was measured: read with commit_ms unknown. */
    static final String RUN_HEADER_WITHOUT_COMMIT = RUN_HEADER.substring(0, RUN_HEADER.lastIndexOf(','));
    static final String SUMMARY_HEADER = "sink,dataset,input,tasks,batch_records,mode,rounds,median_records_per_s,"
            + "median_mb_per_s,median_cpu_s_per_m,median_peak_heap_mb,median_files,median_seconds,median_close_stall_s,"
            + "median_commit_ms";

    private final Map<E2eConfiguration, List<Measurement>> byConfiguration = new TreeMap<>(E2eConfiguration.LISTING);

    E2eReport(List<Measurement> measurements) {
        for (Measurement m : measurements) {
            byConfiguration.computeIfAbsent(m.configuration(), c -> new ArrayList<>()).add(m);
        }
    }

    static String runRow(Measurement m) {
        E2eConfiguration c = m.configuration();
        return String.format(Locale.ROOT, "%s,%s,%s,%d,%d,%s,%d,%d,%.3f,%.0f,%.1f,%.2f,%.2f,%d,%d,%d,%.3f,%.1f",
                c.sink().label, c.dataSet(), c.input().label(), c.tasks(), c.batchRecords(), c.mode().label, m.round(),
                m.records(), m.seconds(), m.recordsPerSecond(), m.megabytesPerSecond(), m.cpuSecondsPerMillion(),
                m.machineBusy(), m.peakHeapBytes() >> 20, m.files(), m.commits(), m.closeStallSeconds(),
                m.commitMs());
    }

    /** The runs of a {@code runs.csv} this benchmark wrote, to report again without running. */
    static List<Measurement> readRuns(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !(lines.get(0).equals(RUN_HEADER) || lines.get(0).equals(RUN_HEADER_WITHOUT_COMMIT))) {
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
            E2eConfiguration c = new E2eConfiguration(sink, DataSet.valueOf(f[1].toUpperCase(Locale.ROOT)),
                    Input.valueOf(f[2].toUpperCase(Locale.ROOT)), Integer.parseInt(f[3]), Integer.parseInt(f[4]),
                    mode);
            long records = Long.parseLong(f[7]);
            double seconds = Double.parseDouble(f[8]);
            runs.add(new Measurement(c, Integer.parseInt(f[6]), seconds, records,
                    Math.round(Double.parseDouble(f[10]) * 1e6 * seconds),
                    Double.parseDouble(f[11]) * records / 1e6, Double.parseDouble(f[12]),
                    Long.parseLong(f[13]) << 20, Long.parseLong(f[14]), Long.parseLong(f[15]),
                    Double.parseDouble(f[16]), f.length > 17 ? Double.parseDouble(f[17]) : Double.NaN));
        }
        return runs;
    }

    void writeSummary(Path csv) throws IOException {
        StringBuilder out = new StringBuilder(SUMMARY_HEADER).append('\n');
        byConfiguration.forEach((c, runs) -> out.append(String.format(Locale.ROOT,
                "%s,%s,%s,%d,%d,%s,%d,%.0f,%.1f,%.2f,%.0f,%.0f,%.3f,%.3f,%.1f%n", c.sink().label, c.dataSet(),
                c.input().label(),
                c.tasks(), c.batchRecords(), c.mode().label, runs.size(), median(runs, Measurement::recordsPerSecond),
                median(runs, Measurement::megabytesPerSecond), median(runs, Measurement::cpuSecondsPerMillion),
                median(runs, m -> m.peakHeapBytes() / 1048576.0), median(runs, m -> m.files()),
                median(runs, Measurement::seconds), median(runs, Measurement::closeStallSeconds),
                median(runs, Measurement::commitMs))));
        Files.writeString(csv, out, StandardCharsets.UTF_8);
    }

    /** The Markdown table of medians and paired ratios, as docs/benchmarks.md shows it. */
    String table() {
        StringBuilder out = new StringBuilder();
        out.append("| configuration | median s | records/s | MB/s | worker CPU s per M records | machine busy "
                + "| peak heap MB | files | commits | put() stalled at closes | close to commit | vs Iceberg "
                + "| pipelined vs serial | early vs at close |\n");
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        byConfiguration.forEach((c, runs) -> {
            out.append(String.format(Locale.ROOT,
                    "| %s | %.2f | %,.0f | %.1f | %.2f | %.0f%% | %,.0f | %.0f | %.0f | %s | %s | %s | %s | %s |%n",
                    c.label(),
                    median(runs, Measurement::seconds), median(runs, Measurement::recordsPerSecond),
                    median(runs, Measurement::megabytesPerSecond), median(runs, Measurement::cpuSecondsPerMillion),
                    100 * median(runs, Measurement::machineBusy),
                    median(runs, m -> m.peakHeapBytes() / 1048576.0), median(runs, m -> m.files()),
                    median(runs, m -> m.commits()), stall(runs), commit(runs), ratio(runs, icebergOf(c)),
                    ratio(runs, sameBut(c, Mode.SERIAL)), ratio(runs, sameBut(c, Mode.AT_CLOSE))));
        });
        out.append("\nput() stalled at closes: seconds the tasks stood still while their batches closed, summed over "
                + "tasks, and that time's share of the tasks' run time (hive-sink's batch-close-stall metric).\n");
        out.append("close to commit: a batch's commit from its close (writing its files, staging, the metastore "
                + "steps), average over batches (hive-sink's commit-time-ms-avg), median over rounds.\n");
        out.append("Ratios are medians over rounds of (records/s of the row / records/s of the other), both measured "
                + "in the same round; above 1 is faster.\n");
        return out.toString();
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
                && o.tasks() == c.tasks()).findFirst().orElse(null);
    }

    /** The pipelined configuration's twin in another mode, if it ran. */
    private E2eConfiguration sameBut(E2eConfiguration c, Mode mode) {
        if (c.mode() != Mode.PIPELINED) {
            return null;
        }
        E2eConfiguration other = new E2eConfiguration(c.sink(), c.set(), c.input(), c.tasks(), c.batchRecords(),
                mode);
        return byConfiguration.containsKey(other) ? other : null;
    }

    private static String commit(List<Measurement> runs) {
        double ms = median(runs, Measurement::commitMs);
        return Double.isNaN(ms) ? "" : String.format(Locale.ROOT, "%,.0f ms", ms);
    }

    /** The median over rounds of this configuration's records/s over the other's, in rounds both completed. */
    private String ratio(List<Measurement> runs, E2eConfiguration other) {
        if (other == null) {
            return "";
        }
        List<Double> ratios = new ArrayList<>();
        for (Measurement m : runs) {
            byConfiguration.get(other).stream().filter(o -> o.round() == m.round()).findFirst()
                    .ifPresent(o -> ratios.add(m.recordsPerSecond() / o.recordsPerSecond()));
        }
        return ratios.isEmpty() ? "" : String.format(Locale.ROOT, "%.2fx", WriterBenchmark.median(ratios));
    }

    private static double median(List<Measurement> runs, ToDoubleFunction<Measurement> metric) {
        return WriterBenchmark.median(runs.stream().map(metric::applyAsDouble).toList());
    }

}
