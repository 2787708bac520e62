package io.hivesink.bench.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import io.hivesink.bench.e2e.E2eRun.Measurement;
import io.hivesink.bench.e2e.E2eRun.Outside;
import io.hivesink.bench.e2e.E2eRun.Settings;
import io.hivesink.bench.e2e.TopicLoader.LoadedTopic;

/**
 * The rate no sink can pass on this machine: Kafka's own {@code ConsumerPerformance} reading the benchmark's topic
 * from the same broker, in a JVM of its own with the workers' heap, in the same run as the sinks. A sink has to read
 * the records too, then convert, encode, write and commit them; the gap between a sink and this ceiling is what all
 * of that costs.
 */
final class ConsumerCeiling {

    private static final String TOOL = "org.apache.kafka.tools.ConsumerPerformance";

    private ConsumerCeiling() {
    }

    static Measurement run(Settings settings, LoadedTopic topic, E2eConfiguration configuration, int round, int id)
            throws IOException, InterruptedException {
        Path dir = Files.createDirectories(settings.stack().workDir().resolve(String.format(Locale.ROOT,
                "e2e_%03d_consumer", id)));
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(settings.workerHeap());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), TOOL,
                "--bootstrap-server", settings.stack().kafka().bootstrapServers(), "--topic", topic.topic(),
                "--group", "e2e_" + id, "--messages", Long.toString(topic.records()), "--hide-header",
                // the most it waits between records before it gives up; a gap that long fails the run below
                "--timeout", Long.toString(Duration.ofSeconds(60).toMillis())));
        Path stdout = dir.resolve("stdout.txt");
        Process process = new ProcessBuilder(command).redirectOutput(stdout.toFile())
                .redirectError(dir.resolve("stderr.txt").toFile()).start();
        // the CPU the process used, sampled while it runs: an exited process's CPU time cannot be asked for
        Duration cpu = Duration.ZERO;
        long deadline = System.nanoTime() + settings.timeout().toNanos();
        while (process.isAlive()) {
            cpu = process.info().totalCpuDuration().orElse(cpu);
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("ConsumerPerformance did not read " + topic.records() + " records in "
                        + settings.timeout().toSeconds() + " s; see " + dir);
            }
            Thread.sleep(100);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("ConsumerPerformance exited with " + process.exitValue() + ": "
                    + Files.readString(dir.resolve("stderr.txt"), StandardCharsets.UTF_8));
        }
        Result result = Result.parse(Files.readAllLines(stdout, StandardCharsets.UTF_8));
        if (result.records() != topic.records()) {
            throw new IllegalStateException("ConsumerPerformance read " + result.records() + " of the topic's "
                    + topic.records() + " records; see " + stdout);
        }
        return new Measurement(configuration, round, result.seconds(), topic.records(), topic.valueBytes(),
                cpu.toNanos() / 1e9, Double.NaN, 0, 0, 0, Double.NaN, Double.NaN,
                ThreadCpu.CpuSplit.unsplit(cpu.toNanos() / 1e9), settings.conditions(), Outside.UNKNOWN);
    }

    /**
     * The tool's summary line: start, end, MB, MB/s, records, records/s, then its group join and fetch times. Its
     * seconds run from the consumer's creation to its last record, the group's join included, as a sink's clock
     * includes its tasks' start.
     */
    record Result(long records, double seconds) {

        private static final Pattern FIELD_SEPARATOR = Pattern.compile(",\\s*");

        static Result parse(List<String> lines) {
            for (int i = lines.size() - 1; i >= 0; i--) {
                String[] fields = FIELD_SEPARATOR.split(lines.get(i), -1);
                if (fields.length >= 6) {
                    long records = Long.parseLong(fields[4].strip());
                    double perSecond = Double.parseDouble(fields[5].strip());
                    return new Result(records, records / perSecond);
                }
            }
            throw new IllegalStateException("ConsumerPerformance printed no summary line: " + lines);
        }
    }
}
