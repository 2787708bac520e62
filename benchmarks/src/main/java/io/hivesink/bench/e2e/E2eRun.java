package io.hivesink.bench.e2e;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.hadoop.fs.FileSystem;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

import io.hivesink.bench.e2e.E2eConfiguration.Input;
import io.hivesink.bench.e2e.E2eConfiguration.Mode;
import io.hivesink.bench.e2e.E2eConfiguration.Sink;
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
            double closeStallSeconds, double commitMs, ThreadCpu.CpuSplit cpuSplit) {

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

    /** The settings every run of a benchmark shares. */
    record Settings(FailoverStack stack, Path benchPlugins, String registryUrl, List<String> workerHeap,
            Map<String, String> workerProps, long batchIntervalMs, long icebergCommitMs, Duration timeout,
            String sinkMetastoreUri, long watchMs) {
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
        FailoverStack stack = settings.stack();
        String name = String.format(Locale.ROOT, "e2e_%03d", id);
        Map<String, String> workerProps = new HashMap<>(settings.workerProps());
        workerProps.put("plugin.path", stack.pluginPath().toAbsolutePath() + ","
                + settings.benchPlugins().toAbsolutePath());
        try (ThriftMetastore metastore = ThriftMetastore.connect(
                new MetastoreSettings(List.of(stack.metastore().uri()), false, "", ""));
                ConnectWorkerProcess worker = stack.startWorker(ConnectRelease.KAFKA_4_1, name, workerProps, Map.of(),
                        settings.workerHeap(), "INFO")) {
            FileSystem fs = stack.fileSystem();
            if (warm != null) {
                Deployment priming = deployment(settings, configuration, warm, name + "_warm", metastore, fs);
                long start = System.nanoTime();
                worker.rest().putConnector(priming.name(), priming.config());
                awaitComplete(settings, worker, priming, configuration, start);
                worker.rest().deleteConnector(priming.name(), Duration.ofMinutes(2));
                fs.delete(new org.apache.hadoop.fs.Path(priming.warehouse()), true);
            }
            Deployment measured = deployment(settings, configuration, topic, name, metastore, fs);
            double seconds;
            double cpu;
            double busy;
            long peakHeap;
            double stall;
            double commitMs;
            ThreadCpu.CpuSplit split;
            try (WorkerProbe probe = new WorkerProbe(worker.jmx(), worker.pid(), stack.metastore().pid())) {
                long start = System.nanoTime();
                worker.rest().putConnector(name, measured.config());
                awaitComplete(settings, worker, measured, configuration, start);
                seconds = (System.nanoTime() - start) / 1e9;
                split = probe.cpuSplit();
                cpu = split.total();
                System.out.printf(Locale.ROOT, "  %s busiest threads: %s%n", name, probe.busiestThreads(6));
                System.out.printf(Locale.ROOT, "  %s CPU outside the worker: %s%n", name, probe.outsideTheWorker());
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
                    peakHeap, files, commits, stall, commitMs, split);
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
            watch = new CommitWatch.HiveSinkLedger(metastore, fs, name, topic.topic(), topic.ends());
        } else {
            warehouse = "/warehouse/iceberg/" + name;
            metastore.createDatabase(name, settings.stack().hdfsUri() + warehouse);
            try (Admin admin = settings.stack().kafka().createAdminClient()) {
                admin.createTopics(List.of(new NewTopic("control_" + name, 1, (short) 1))).all().get();
            }
            config = iceberg(settings, topic, name, warehouse);
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
            Thread.sleep(settings.watchMs());
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
        config.put("fs.url", stack.hdfsUri());
        config.put("warehouse.dir", warehouse);
        config.put("hive.metastore.uris", settings.sinkMetastoreUri());
        config.put("hive.database", name);
        config.put("batch.max.records", Integer.toString(configuration.batchRecords()));
        // the record limit decides, not the byte limit (its default, 512 MiB, is below 1M StockQuote records)
        config.put("batch.max.bytes", Long.toString(4L << 30));
        config.put("batch.max.interval.ms", Long.toString(settings.batchIntervalMs()));
        config.put("batch.pipelined", Boolean.toString(configuration.mode() != Mode.SERIAL));
        config.put("avro.compress.early", Boolean.toString(configuration.mode() != Mode.AT_CLOSE));
        if (configuration.input() == Input.PASSTHROUGH) {
            config.put("input.format", "confluent-avro");
            config.put("schema.registry.url", settings.registryUrl());
            config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        } else {
            structConverter(settings, config);
        }
        return config;
    }

    private static Map<String, String> iceberg(Settings settings, LoadedTopic topic, String name,
            String warehouse) {
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
        // the same files as hive-sink writes: Avro, snappy
        config.put("iceberg.tables.auto-create-props.write.format.default", "avro");
        config.put("iceberg.tables.auto-create-props.write.avro.compression-codec", "snappy");
        structConverter(settings, config);
        return config;
    }

    private static void structConverter(Settings settings, Map<String, String> config) {
        config.put("value.converter", FramedAvroConverter.class.getName());
        config.put("value.converter.schema.registry.url", settings.registryUrl());
    }
}
