package io.hivesink.bench.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

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
            + "records_per_s,mb_per_s,cpu_s_per_m,machine_busy,peak_heap_mb,files,commits";
    static final String SUMMARY_HEADER = "sink,dataset,input,tasks,batch_records,mode,rounds,median_records_per_s,"
            + "median_mb_per_s,median_cpu_s_per_m,median_peak_heap_mb,median_files,median_seconds";

    private final Map<E2eConfiguration, List<Measurement>> byConfiguration = new LinkedHashMap<>();

    E2eReport(List<Measurement> measurements) {
        for (Measurement m : measurements) {
            byConfiguration.computeIfAbsent(m.configuration(), c -> new ArrayList<>()).add(m);
        }
    }

    static String runRow(Measurement m) {
        E2eConfiguration c = m.configuration();
        return String.format(Locale.ROOT, "%s,%s,%s,%d,%d,%s,%d,%d,%.3f,%.0f,%.1f,%.2f,%.2f,%d,%d,%d", c.sink().label,
                c.dataSet(), c.input().label(), c.tasks(), c.batchRecords(), c.mode().label, m.round(), m.records(),
                m.seconds(), m.recordsPerSecond(), m.megabytesPerSecond(), m.cpuSecondsPerMillion(), m.machineBusy(),
                m.peakHeapBytes() >> 20, m.files(), m.commits());
    }

    void writeSummary(Path csv) throws IOException {
        StringBuilder out = new StringBuilder(SUMMARY_HEADER).append('\n');
        byConfiguration.forEach((c, runs) -> out.append(String.format(Locale.ROOT,
                "%s,%s,%s,%d,%d,%s,%d,%.0f,%.1f,%.2f,%.0f,%.0f,%.3f%n", c.sink().label, c.dataSet(), c.input().label(),
                c.tasks(), c.batchRecords(), c.mode().label, runs.size(), median(runs, Measurement::recordsPerSecond),
                median(runs, Measurement::megabytesPerSecond), median(runs, Measurement::cpuSecondsPerMillion),
                median(runs, m -> m.peakHeapBytes() / 1048576.0), median(runs, m -> m.files()),
                median(runs, Measurement::seconds))));
        Files.writeString(csv, out, StandardCharsets.UTF_8);
    }

    /** The Markdown table of medians and paired ratios, as docs/benchmarks.md shows it. */
    String table() {
        StringBuilder out = new StringBuilder();
        out.append("| configuration | median s | records/s | MB/s | worker CPU s per M records | machine busy "
                + "| peak heap MB | files | commits | vs Iceberg | pipelined vs serial |\n");
        out.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        byConfiguration.forEach((c, runs) -> {
            out.append(String.format(Locale.ROOT,
                    "| %s | %.2f | %,.0f | %.1f | %.2f | %.0f%% | %,.0f | %.0f | %.0f | %s | %s |%n", c.label(),
                    median(runs, Measurement::seconds), median(runs, Measurement::recordsPerSecond),
                    median(runs, Measurement::megabytesPerSecond), median(runs, Measurement::cpuSecondsPerMillion),
                    100 * median(runs, Measurement::machineBusy),
                    median(runs, m -> m.peakHeapBytes() / 1048576.0), median(runs, m -> m.files()),
                    median(runs, m -> m.commits()), ratio(runs, icebergOf(c)), ratio(runs, serialOf(c))));
        });
        out.append("\nRatios are medians over rounds of (records/s of the row / records/s of the other), both measured "
                + "in the same round; above 1 is faster.\n");
        return out.toString();
    }

    private E2eConfiguration icebergOf(E2eConfiguration c) {
        if (c.sink() != Sink.HIVE_SINK) {
            return null;
        }
        return byConfiguration.keySet().stream().filter(o -> o.sink() == Sink.ICEBERG && o.set() == c.set()
                && o.tasks() == c.tasks()).findFirst().orElse(null);
    }

    private E2eConfiguration serialOf(E2eConfiguration c) {
        if (c.mode() != Mode.PIPELINED) {
            return null;
        }
        E2eConfiguration serial = new E2eConfiguration(c.sink(), c.set(), c.input(), c.tasks(), c.batchRecords(),
                Mode.SERIAL);
        return byConfiguration.containsKey(serial) ? serial : null;
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
        return ratios.isEmpty() ? "" : String.format(Locale.ROOT, "%.2fx", medianOf(ratios));
    }

    private static double median(List<Measurement> runs, ToDoubleFunction<Measurement> metric) {
        return medianOf(runs.stream().map(metric::applyAsDouble).toList());
    }

    static double medianOf(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
