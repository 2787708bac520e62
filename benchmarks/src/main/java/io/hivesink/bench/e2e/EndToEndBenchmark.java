package io.hivesink.bench.e2e;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import org.apache.kafka.clients.admin.Admin;

import io.hivesink.bench.BenchData.DataSet;
import io.hivesink.bench.WriterBenchmark;
import io.hivesink.bench.e2e.E2eConfiguration.Format;
import io.hivesink.bench.e2e.E2eConfiguration.Input;
import io.hivesink.bench.e2e.E2eConfiguration.Mode;
import io.hivesink.bench.e2e.E2eConfiguration.Sink;
import io.hivesink.bench.e2e.E2eConfiguration.Store;
import io.hivesink.bench.e2e.E2eRun.Measurement;
import io.hivesink.bench.e2e.TopicLoader.LoadedTopic;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.python.PythonVenv;
import io.hivesink.stack.registry.RegistryStandIn;

/**
 * The end-to-end benchmark: records preloaded into a topic, then, per configuration and round, a fresh Connect worker
 * JVM loading the sinks from {@code plugin.path}, the connector deployed through REST, and the clock stopped when the
 * metastore holds every record. hive-sink and Iceberg's sink run on the same broker, HDFS and metastore, in the same
 * run, each round in an order of its own (seeded; {@code --order fixed} keeps the listed one). Prints and writes
 * (under {@code --out}) each run, the medians and paired ratios, and a plot. See docs/benchmarks.md.
 */
public final class EndToEndBenchmark {

    private EndToEndBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = WriterBenchmark.options(args);
        // the stack's parts log to a file, the console keeps the figures (before anything logs)
        System.setProperty("log4j2.configurationFile", "hive-sink-stack-log4j2.xml");
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
        double scale = Double.parseDouble(options.getOrDefault("records-scale", "1.0"));
        List<DataSet> sets = list(options.getOrDefault("sets", "STOCKQUOTE,WIDE300")).stream()
                .map(DataSet::valueOf).toList();
        List<Input> inputs = list(options.getOrDefault("inputs", "passthrough,struct")).stream()
                .map(s -> Input.valueOf(s.toUpperCase(Locale.ROOT))).toList();
        List<Integer> tasks = list(options.getOrDefault("tasks", "1,2")).stream().map(Integer::parseInt).toList();
        List<Integer> batches = list(options.getOrDefault("batches", "100000,1000000")).stream()
                .map(Integer::parseInt).toList();
        List<Mode> modes = list(options.getOrDefault("modes", "pipelined,serial")).stream()
                .map(s -> Mode.valueOf(s.toUpperCase(Locale.ROOT))).toList();
        List<String> sinks = list(options.getOrDefault("sinks", "hive-sink,iceberg,consumer"));
        List<Format> formats = list(options.getOrDefault("formats", "avro,parquet")).stream()
                .map(s -> Format.valueOf(s.toUpperCase(Locale.ROOT))).toList();
        // where hive-sink's tables go: s3 adds S3Proxy to the stack (and needs --metastore HIVE_4_0); Iceberg's sink
        // writes to HDFS whatever this says
        List<Store> stores = list(options.getOrDefault("stores", "hdfs")).stream().map(Store::of).toList();
        int partitions = Integer.parseInt(options.getOrDefault("partitions", "4"));
        Path root = Path.of(options.getOrDefault("project", Files.isDirectory(Path.of("benchmarks")) ? "." : ".."))
                .toAbsolutePath().normalize();
        Path out = Files.createDirectories(Path.of(options.getOrDefault("out",
                root.resolve("benchmarks/target/e2e").toString())));
        System.setProperty("hivesink.log.file", out.resolve("stack.log").toString());
        Path work = Path.of(options.getOrDefault("work", root.resolve("benchmarks/target/e2e-work").toString()));
        if (options.containsKey("report-only")) {
            // the figures and plot again from a runs.csv, say of a run that was stopped before its last round
            report(root, out, E2eReport.readRuns(Path.of(options.get("report-only"))));
            return;
        }
        Path icebergPlugin = Path.of(options.getOrDefault("iceberg-plugin",
                root.resolve("peer-iceberg-plugin/target/plugin/iceberg-kafka-connect").toString()));

        List<E2eConfiguration> configurations = new ArrayList<>();
        for (DataSet set : sets) {
            for (Format format : formats) {
                if (sinks.contains("hive-sink")) {
                    for (Input input : inputs) {
                        for (int t : tasks) {
                            for (int batch : batches) {
                                for (Mode mode : modes) {
                                    for (Store store : stores) {
                                        configurations.add(new E2eConfiguration(Sink.HIVE_SINK, set, input, t,
                                                batch, mode, format, store));
                                    }
                                }
                            }
                        }
                    }
                }
                if (sinks.contains("iceberg")) {
                    for (int t : tasks) {
                        configurations.add(new E2eConfiguration(Sink.ICEBERG, set, Input.STRUCT, t, 0, Mode.NONE,
                                format));
                    }
                }
            }
            if (sinks.contains("consumer")) {
                configurations.add(E2eConfiguration.consumer(set));
            }
        }

        Map<String, String> workerProps = new LinkedHashMap<>();
        for (Map.Entry<String, String> option : options.entrySet()) {
            if (option.getKey().startsWith("worker.")) {
                workerProps.put(option.getKey().substring("worker.".length()), option.getValue());
            }
        }
        List<String> heap = List.of(options.getOrDefault("worker-heap", "-Xmx6g").split(" "));
        long interval = Long.parseLong(options.getOrDefault("batch-interval-ms", "2000"));
        // 0: off; above 0, a batch of a task left with less than a batch's records lands once no record came for this
        // long, not at the interval (a rebalance at the start leaves each of 2 tasks such a tail)
        long idle = Long.parseLong(options.getOrDefault("batch-idle-ms", "0"));
        long icebergCommit = Long.parseLong(options.getOrDefault("iceberg-commit-ms", "1000"));
        // Iceberg's Hive catalog speaks the Hive 2.3 client's calls, some of which (get_table) Hive 4's metastore
        // no longer answers; 3.1 is also the release most users run
        MetastoreRelease metastoreRelease = MetastoreRelease.valueOf(options.getOrDefault("metastore", "HIVE_3_1"));
        Duration timeout = Duration.ofSeconds(Long.parseLong(options.getOrDefault("timeout-s", "600")));
        // a fresh stack runs its first configuration slower (the broker's and HDFS's code not compiled yet, caches
        // cold): that first run is made once more before round 1 and not counted
        int warmups = Integer.parseInt(options.getOrDefault("warmup-runs", "1"));
        // 0: each run's clock starts on a fresh worker JVM, so that the run pays for compiling the code it runs;
        // above 0: the worker is primed first, landing a topic of this share of the records with a connector of the
        // run's own configuration, deleted before the measured one is deployed, as on a worker that has run a while
        double warmShare = Double.parseDouble(options.getOrDefault("warm-worker", "0"));
        // how often the clock asks the metastore whether every record landed: each ask is a metastore call, which
        // costs the metastore CPU that the sinks share; the clock stops up to this late
        long watchMs = Long.parseLong(options.getOrDefault("watch-ms", "100"));
        if (watchMs < 1) {
            throw new IllegalArgumentException("--watch-ms must be 1 or more (it was " + watchMs + "): 0 would ask "
                    + "the metastore without a pause, taking CPU from the sinks being measured");
        }
        // the files' codec, for both sinks at the same level: snappy by default (hive-sink's default; every run before
        // the codec could be chosen used it)
        String codec = E2eRun.checkedCodec(options.getOrDefault("codec", "snappy"));
        E2eRun.Conditions conditions = new E2eRun.Conditions(warmShare, watchMs, codec);
        long metastoreDelayMs = Long.parseLong(options.getOrDefault("metastore-delay-ms", "0"));
        // a fixed order lets a drift of the stack over a run (files, tables and metastore rows pile up, the broker's
        // page cache fills) land on the same configurations every round; shuffled, it spreads over all of them
        boolean shuffled = !options.getOrDefault("order", "shuffled").equals("fixed");
        long seed = Long.parseLong(options.getOrDefault("seed", Long.toString(System.nanoTime() % 100_000)));

        System.out.printf(Locale.ROOT, "End-to-end benchmark: %d configurations x %d rounds, %s; worker %s %s; "
                + "batch.max.interval.ms %d; batch.max.idle.ms %d; Iceberg commit interval %d ms; metastore %s, %d ms "
                + "added to each call; %s%n",
                configurations.size(), rounds, shuffled ? "each round in its own order (--seed " + seed + ")"
                        : "in a fixed order", heap, workerProps, interval, idle, icebergCommit, metastoreRelease,
                metastoreDelayMs, conditions.describe());
        Path runsCsv = out.resolve("runs.csv");
        Files.writeString(runsCsv, E2eReport.RUN_HEADER + "\n", StandardCharsets.UTF_8);
        List<Measurement> measurements = new ArrayList<>();
        try (FailoverStack stack = stores.contains(Store.S3) ? FailoverStack.startOnS3(work, false, metastoreRelease)
                : FailoverStack.start(work, 1, false, metastoreRelease);
                RegistryStandIn registry = new RegistryStandIn().start();
                DelayingProxy delayed = metastoreDelayMs > 0
                        ? DelayingProxy.start(stack.metastore().uri(), metastoreDelayMs) : null) {
            Map<DataSet, LoadedTopic> topics = new LinkedHashMap<>();
            Map<DataSet, LoadedTopic> warmTopics = new LinkedHashMap<>();
            try (Admin admin = stack.kafka().createAdminClient()) {
                for (DataSet set : sets) {
                    int records = (int) Math.max(1, (set == DataSet.STOCKQUOTE ? 1_000_000 : 250_000) * scale);
                    long started = System.nanoTime();
                    LoadedTopic topic = TopicLoader.load(admin, stack.kafka().bootstrapServers(), registry, set,
                            records, partitions);
                    topics.put(set, topic);
                    System.out.printf(Locale.ROOT, "Loaded %s: %,d records, %.1f MB of values, %d partitions, in "
                            + "%.1f s%n", topic.topic(), records, topic.valueBytes() / 1e6, partitions,
                            (System.nanoTime() - started) / 1e9);
                    if (warmShare > 0) {
                        int warmRecords = (int) Math.max(1, records * warmShare);
                        warmTopics.put(set, TopicLoader.load(admin, stack.kafka().bootstrapServers(), registry, set,
                                warmRecords, partitions, topic.topic() + "_warm"));
                        System.out.printf(Locale.ROOT, "Loaded %s_warm: %,d records%n", topic.topic(), warmRecords);
                    }
                }
            }
            Path plugins = BenchPlugins.assemble(work.resolve("bench-plugins"), icebergPlugin);
            E2eRun.Settings settings = new E2eRun.Settings(stack, plugins, registry.url(), heap, workerProps,
                    interval, idle, icebergCommit, timeout, delayed != null ? delayed.uri() : stack.metastore().uri(),
                    conditions);
            int id = 0;
            for (int w = 0; w < warmups && !configurations.isEmpty(); w++) {
                E2eConfiguration first = configurations.get(0);
                Measurement m = E2eRun.run(settings, topics.get(first.set()), warmTopics.get(first.set()), first, 0,
                        ++id);
                System.out.printf(Locale.ROOT, "warm-up  %-70s %6.2f s  %,9.0f records/s (not counted)%n",
                        first.label(), m.seconds(), m.recordsPerSecond());
            }
            for (int round = 1; round <= rounds; round++) {
                List<E2eConfiguration> order = new ArrayList<>(configurations);
                if (shuffled) {
                    Collections.shuffle(order, new Random(seed + round));
                }
                for (E2eConfiguration configuration : order) {
                    id++;
                    try {
                        Measurement m = E2eRun.run(settings, topics.get(configuration.set()),
                                warmTopics.get(configuration.set()), configuration, round, id);
                        measurements.add(m);
                        Files.writeString(runsCsv, E2eReport.runRow(m) + "\n", StandardCharsets.UTF_8,
                                StandardOpenOption.APPEND);
                        System.out.printf(Locale.ROOT, "round %d  %-70s %6.2f s  %,9.0f records/s  %6.1f MB/s  "
                                + "CPU %5.1f s/M  machine %3.0f%% busy  heap %,6d MB  %d files  %d commits  "
                                + "stalled %.1f s  commit %.0f ms%n", round, configuration.label(), m.seconds(),
                                m.recordsPerSecond(), m.megabytesPerSecond(), m.cpuSecondsPerMillion(),
                                100 * m.machineBusy(), m.peakHeapBytes() >> 20, m.files(), m.commits(),
                                m.closeStallSeconds(), m.commitMs());
                    } catch (Exception | AssertionError e) {
                        System.out.printf(Locale.ROOT, "round %d  %s FAILED: %s%n", round, configuration.label(),
                                e.getMessage());
                    }
                }
            }
        }
        report(root, out, measurements);
    }

    private static void report(Path root, Path out, List<Measurement> measurements) throws Exception {
        E2eReport report = new E2eReport(measurements);
        String table = report.conditions() + report.table() + "\n" + report.cpuTable();
        System.out.println();
        System.out.println(table);
        Files.writeString(out.resolve("summary.md"), table, StandardCharsets.UTF_8);
        Path summary = out.resolve("summary.csv");
        report.writeSummary(summary);
        plot(root, summary, out.resolve("e2e-records-per-second.png"));
    }

    /** Draws the plot with the benchmark's own script, in a Python environment of its own. */
    private static void plot(Path root, Path summary, Path png) throws Exception {
        Path script = root.resolve("benchmarks/plot/e2e_plot.py");
        List<String> requirements = Files.readAllLines(root.resolve("benchmarks/plot/requirements.txt")).stream()
                .map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
        Path python = PythonVenv.at(root.resolve("benchmarks/target/plot-venv"), requirements).python();
        PythonVenv.run(List.of(python.toString(), script.toString(), summary.toString(), png.toString()),
                Duration.ofMinutes(2));
        System.out.println("Plot: " + png);
    }

    private static List<String> list(String value) {
        return Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }
}
