package io.hivesink.bench.e2e;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.hadoop.fs.FileSystem;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

import io.hivesink.bench.e2e.E2eConfiguration.Format;
import io.hivesink.bench.e2e.E2eConfiguration.Input;
import io.hivesink.bench.e2e.E2eConfiguration.Mode;
import io.hivesink.bench.e2e.E2eConfiguration.Sink;
import io.hivesink.bench.e2e.E2eConfiguration.Store;
import io.hivesink.bench.e2e.TopicLoader.LoadedTopic;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.connect.ConnectRelease;
import io.hivesink.stack.connect.ConnectWorkerProcess;

/**
 * One run of one configuration: a fresh worker JVM (primed, if asked, by a connector of the same configuration that
 * lands a smaller topic first), the connector deployed through REST, the clock stopped when the metastore holds every
 * record, the worker's CPU and heap read over JMX, the run's files then deleted.
 */
final class E2eRun {

    /** What one run measured. */
    record Measurement(E2eConfiguration configuration, int round, double seconds, long records, long valueBytes,
            double cpuSeconds, double machineBusy, long peakHeapBytes, long files, long commits,
            double closeStallSeconds, double commitMs, ThreadCpu.CpuSplit cpuSplit, Conditions conditions,
            Outside outside) {

        double recordsPerSecond() {
            return records / seconds;
        }

        double megabytesPerSecond() {
            return valueBytes / 1e6 / seconds;
        }

        double cpuSecondsPerMillion() {
            return cpuSeconds / (records / 1e6);
        }

        /** CPU seconds per million records of one part of the split. */
        double perMillion(java.util.function.ToDoubleFunction<ThreadCpu.CpuSplit> part) {
            return part.applyAsDouble(cpuSplit) / (records / 1e6);
        }
    }

    /**
     * What an invocation ran every configuration under, kept with each run so that a report made again from runs.csv
     * says it too: the share of the records that primed each worker (0: fresh workers), how often the clock asked the
     * metastore, and the files' codec (both sinks, at the same level).
     */
    record Conditions(double warmShare, long watchMs, String codec) {

        static final Conditions UNKNOWN = new Conditions(Double.NaN, -1, "");

        String describe() {
            if (this.equals(UNKNOWN)) {
                return "(not recorded: a runs.csv from before these were kept)";
            }
            return String.format(Locale.ROOT, "%s; the clock asked the metastore every %d ms; codec %s",
                    warmShare > 0 ? "each worker first landed " + warmShare + " of the records with a connector of "
                            + "the run's configuration, deleted before the clock started" : "fresh workers",
                    watchMs, codec);
        }
    }

    /**
     * The CPU seconds the processes outside the worker used during a run: this JVM (the broker, HDFS, the benchmark's
     * clock and probe) and the metastore. NaN where not measured.
     */
    record Outside(double benchmarkJvmSeconds, double metastoreSeconds) {

        static final Outside UNKNOWN = new Outside(Double.NaN, Double.NaN);
    }

    /** The settings every run of a benchmark shares. */
    record Settings(FailoverStack stack, Path benchPlugins, String registryUrl, List<String> workerHeap,
            Map<String, String> workerProps, long batchIntervalMs, long batchIdleMs, long icebergCommitMs,
            Duration timeout,
            String sinkMetastoreUri, Conditions conditions) {
    }

    /**
     * Each codec's level, set for both sinks alike: hive-sink's defaults (zlib's and zstd's own), which Iceberg's sink
     * would not pick by itself (it defaults to other levels).
     */
    private static final Map<String, Integer> CODEC_LEVELS = Map.of("deflate", 6, "zstandard", 3);
    /** Iceberg's names for the Avro codecs hive-sink's avro.codec takes. */
    private static final Map<String, String> ICEBERG_CODECS = Map.of("null", "uncompressed", "snappy", "snappy",
            "deflate", "gzip", "zstandard", "zstd");

    /** hive-sink's names for the Parquet codecs of those Avro codecs (Iceberg's are the same for both formats). */
    private static final Map<String, String> PARQUET_CODECS = Map.of("null", "none", "snappy", "snappy",
            "deflate", "gzip", "zstandard", "zstd");

    /** Refuses a codec both sinks cannot write alike, naming those they can. */
    static String checkedCodec(String codec) {
        if (!ICEBERG_CODECS.containsKey(codec)) {
            throw new IllegalArgumentException("--codec " + codec + " is not one both sinks write: use one of "
                    + new java.util.TreeSet<>(ICEBERG_CODECS.keySet()));
        }
        return codec;
    }

    private E2eRun() {
    }

    /**
     * @param warm null: the clock starts on a fresh worker JVM; otherwise a priming connector of the same configuration
     *     first lands this topic on the same worker, and is deleted, before the measured one is deployed (a worker
     *     that has run such a connector before, its code compiled, as a long-running worker's is)
     */
    static Measurement run(Settings settings, LoadedTopic topic, LoadedTopic warm, E2eConfiguration configuration,
            int round, int id) throws Exception {
        if (configuration.sink() == Sink.CONSUMER) {
            return ConsumerCeiling.run(settings, topic, configuration, round, id);
        }
        FailoverStack stack = settings.stack();
        String name = String.format(Locale.ROOT, "e2e_%03d", id);
        Map<String, String> workerProps = new HashMap<>(settings.workerProps());
        workerProps.put("plugin.path", stack.pluginPath().toAbsolutePath() + ","
                + settings.benchPlugins().toAbsolutePath());
        try (ThriftMetastore metastore = ThriftMetastore.connect(
                new MetastoreSettings(List.of(stack.metastore().uri()), false, "", ""));
                ConnectWorkerProcess worker = stack.startWorker(ConnectRelease.KAFKA_4_1, name, workerProps, Map.of(),
                        settings.workerHeap(), "INFO")) {
            FileSystem fs = configuration.store() == Store.S3 ? stack.tableFileSystem() : stack.fileSystem();
            if (warm != null) {
                Deployment priming = deployment(settings, configuration, warm, name + "_warm", metastore, fs);
                long start = System.nanoTime();
                worker.rest().putConnector(priming.name(), priming.config());
                awaitComplete(settings, worker, priming, configuration, start);
                worker.rest().deleteConnector(priming.name(), Duration.ofMinutes(2));
                fs.delete(new org.apache.hadoop.fs.Path(priming.warehouse()), true);
                // the priming connector's garbage is collected now, not on the measured run's clock
                ManagementFactory.newPlatformMXBeanProxy(worker.jmx(), ManagementFactory.MEMORY_MXBEAN_NAME,
                        MemoryMXBean.class).gc();
            }
            Deployment measured = deployment(settings, configuration, topic, name, metastore, fs);
            double seconds;
            double cpu;
            double busy;
            long peakHeap;
            double stall;
            double commitMs;
            ThreadCpu.CpuSplit split;
            Outside outside;
            try (WorkerProbe probe = new WorkerProbe(worker.jmx(), worker.pid(), stack.metastore().pid())) {
                long start = System.nanoTime();
                worker.rest().putConnector(name, measured.config());
                awaitComplete(settings, worker, measured, configuration, start);
                seconds = (System.nanoTime() - start) / 1e9;
                split = probe.cpuSplit();
                cpu = split.total();
                System.out.printf(Locale.ROOT, "  %s busiest threads: %s%n", name, probe.busiestThreads(6));
                outside = probe.outsideTheWorker();
                System.out.printf(Locale.ROOT, "  %s CPU outside the worker: broker, HDFS and benchmark %.1f s, "
                        + "metastore %.1f s%n", name, outside.benchmarkJvmSeconds(), outside.metastoreSeconds());
                busy = probe.machineBusy();
                peakHeap = probe.peakHeapBytes();
                stall = configuration.sink() == Sink.HIVE_SINK ? probe.closeStallSeconds(name) : Double.NaN;
                commitMs = configuration.sink() == Sink.HIVE_SINK ? probe.commitMs(name) : Double.NaN;
            }
            CommitWatch watch = measured.watch();
            long files = watch.files();
            long commits = watch instanceof CommitWatch.HiveSinkLedger ledger ? ledger.batches()
                    : ((CommitWatch.IcebergSnapshot) watch).snapshots();
            fs.delete(new org.apache.hadoop.fs.Path(measured.warehouse()), true);
            return new Measurement(configuration, round, seconds, topic.records(), topic.valueBytes(), cpu, busy,
                    peakHeap, files, commits, stall, commitMs, split, settings.conditions(), outside);
        }
    }

    /** A connector to deploy: its name and config, where its files go, and what tells that it landed its topic. */
    private record Deployment(String name, Map<String, String> config, String warehouse, CommitWatch watch) {
    }

    private static Deployment deployment(Settings settings, E2eConfiguration configuration, LoadedTopic topic,
            String name, ThriftMetastore metastore, FileSystem fs) throws Exception {
        Map<String, String> config;
        CommitWatch watch;
        String warehouse;
        if (configuration.sink() == Sink.HIVE_SINK) {
            warehouse = "/warehouse/hive-sink/" + name;
            config = hiveSink(settings, configuration, name, warehouse);
            watch = new CommitWatch.HiveSinkLedger(metastore, fs, name, topic.topic(), topic.ends(),
                    "." + configuration.format().label);
        } else {
            warehouse = "/warehouse/iceberg/" + name;
            metastore.createDatabase(name, settings.stack().hdfsUri() + warehouse);
            try (Admin admin = settings.stack().kafka().createAdminClient()) {
                admin.createTopics(List.of(new NewTopic("control_" + name, 1, (short) 1))).all().get();
            }
            config = iceberg(settings, configuration, topic, name, warehouse);
            watch = new CommitWatch.IcebergSnapshot(metastore, fs, name, topic.topic(), topic.records());
        }
        config.put("tasks.max", Integer.toString(configuration.tasks()));
        config.put("topics", topic.topic());
        return new Deployment(name, config, warehouse, watch);
    }

    /** Waits until the connector has landed every record of its topic; throws if a task failed or time ran out. */
    private static void awaitComplete(Settings settings, ConnectWorkerProcess worker, Deployment deployment,
            E2eConfiguration configuration, long start) throws Exception {
        long deadline = start + settings.timeout().toNanos();
        long nextStatus = start;
        while (!deployment.watch().complete()) {
            long now = System.nanoTime();
            if (now > deadline) {
                throw new IllegalStateException(configuration.label() + " (" + deployment.name() + ") did not commit "
                        + "every record in " + settings.timeout().toSeconds() + " s; the worker's log ends:\n"
                        + worker.logTail());
            }
            if (now > nextStatus) {
                failIfATaskFailed(worker, deployment.name());
                nextStatus = now + 2_000_000_000L;
            }
            Thread.sleep(settings.conditions().watchMs());
        }
    }

    private static void failIfATaskFailed(ConnectWorkerProcess worker, String name) throws java.io.IOException {
        com.fasterxml.jackson.databind.JsonNode status = worker.rest().status(name);
        if (status == null) {
            return;
        }
        for (com.fasterxml.jackson.databind.JsonNode task : status.path("tasks")) {
            if ("FAILED".equals(task.path("state").asText())) {
                throw new IllegalStateException("task " + task.path("id").asText() + " of " + name + " failed: "
                        + task.path("trace").asText());
            }
        }
    }

    private static Map<String, String> hiveSink(Settings settings, E2eConfiguration configuration, String name,
            String warehouse) {
        Map<String, String> config = new HashMap<>();
        FailoverStack stack = settings.stack();
        config.put("connector.class", "io.hivesink.HiveSinkConnector");
        if (configuration.store() == Store.S3) {
            config.putAll(stack.s3ConnectorSettings()); // fs.url s3a://..., the s3.* keys
        } else {
            config.put("fs.url", stack.hdfsUri());
        }
        config.put("warehouse.dir", warehouse);
        config.put("hive.metastore.uris", settings.sinkMetastoreUri());
        config.put("hive.database", name);
        config.put("batch.max.records", Integer.toString(configuration.batchRecords()));
        // the record limit decides, not the byte limit (its default, 512 MiB, is below 1M StockQuote records)
        config.put("batch.max.bytes", Long.toString(4L << 30));
        config.put("batch.max.interval.ms", Long.toString(settings.batchIntervalMs()));
        if (settings.batchIdleMs() > 0) {
            config.put("batch.max.idle.ms", Long.toString(settings.batchIdleMs()));
        }
        config.put("batch.pipelined", Boolean.toString(configuration.mode() != Mode.SERIAL));
        config.put("avro.compress.early", Boolean.toString(configuration.mode() != Mode.AT_CLOSE));
        String codec = settings.conditions().codec();
        if (configuration.format() == Format.PARQUET) {
            // row groups, pages and dictionaries at both sinks' defaults (128 MiB, 1 MiB, on); the codecs' levels are
            // Parquet's own defaults, the levels Iceberg is given below
            config.put("format", "parquet");
            config.put("parquet.codec", PARQUET_CODECS.get(codec));
        } else {
            config.put("avro.codec", codec);
            if (CODEC_LEVELS.containsKey(codec)) {
                config.put("avro.codec.level", CODEC_LEVELS.get(codec).toString());
            }
        }
        if (configuration.input() == Input.PASSTHROUGH) {
            config.put("input.format", "confluent-avro");
            config.put("schema.registry.url", settings.registryUrl());
            config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        } else {
            structConverter(settings, config);
        }
        return config;
    }

    private static Map<String, String> iceberg(Settings settings, E2eConfiguration configuration, LoadedTopic topic,
            String name, String warehouse) {
        Map<String, String> config = new HashMap<>();
        FailoverStack stack = settings.stack();
        config.put("connector.class", "org.apache.iceberg.connect.IcebergSinkConnector");
        config.put("iceberg.tables", name + "." + topic.topic());
        config.put("iceberg.tables.auto-create-enabled", "true");
        config.put("iceberg.catalog.type", "hive");
        config.put("iceberg.catalog.uri", settings.sinkMetastoreUri());
        config.put("iceberg.catalog.warehouse", stack.hdfsUri() + warehouse);
        config.put("iceberg.hadoop.fs.defaultFS", stack.hdfsUri());
        config.put("iceberg.control.topic", "control_" + name);
        config.put("iceberg.control.commit.interval-ms", Long.toString(settings.icebergCommitMs()));
        // the same files as hive-sink writes: the same format, the same codec at the same level
        String format = configuration.format().label;
        String props = "iceberg.tables.auto-create-props.write.";
        config.put(props + "format.default", format);
        String codec = settings.conditions().codec();
        config.put(props + format + ".compression-codec", ICEBERG_CODECS.get(codec));
        if (CODEC_LEVELS.containsKey(codec)) {
            config.put(props + format + ".compression-level", CODEC_LEVELS.get(codec).toString());
        }
        structConverter(settings, config);
        return config;
    }

    private static void structConverter(Settings settings, Map<String, String> config) {
        config.put("value.converter", FramedAvroConverter.class.getName());
        config.put("value.converter.schema.registry.url", settings.registryUrl());
    }
}
