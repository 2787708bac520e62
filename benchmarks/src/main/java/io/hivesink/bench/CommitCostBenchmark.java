package io.hivesink.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

import org.apache.kafka.common.TopicPartition;

import io.hivesink.commit.CommitSummary;
import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.FaultPoint;
import io.hivesink.commit.Fencing;
import io.hivesink.stack.commit.CommitRig;
import io.hivesink.stack.commit.RigStack;
import io.hivesink.stack.hive.MetastoreRelease;

/**
 * What the commit protocol costs on a real metastore (4.0.1 on Derby, in a child JVM) and HDFS (MiniDFSCluster):
 * the metastore time of a batch touching 50 tables, with new and with existing partitions, and the time a task
 * takes to recover (claim its partitions) when 10,000 files are committed, against the same with none.
 *
 * <pre>
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *     io.hivesink.bench.CommitCostBenchmark [--tables 50] [--files 10000] [--rounds 7]
 * </pre>
 */
public final class CommitCostBenchmark {

    public static void main(String[] args) throws Exception {
        int tables = intArg(args, "--tables", 50);
        int files = intArg(args, "--files", 10_000);
        int rounds = intArg(args, "--rounds", 7);
        try (RigStack stack = RigStack.start(Path.of("target", "commit-cost"), MetastoreRelease.HIVE_4_0,
                Map.of())) {
            CommitRig rig = stack.rig("bench");
            manyTables(rig, tables, rounds);
            recovery(rig, files, rounds);
        }
    }

    /** One batch over {@code tables} tables, 2 partitions each: first all partitions new, then all existing. */
    private static void manyTables(CommitRig rig, int tables, int rounds) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (int t = 0; t < tables; t++) {
            partitions.add(new TopicPartition("wide" + t, 0));
        }
        CommitRig.Task task = rig.task("wide-sink", 0, FaultInjector.NONE, Fencing.AUTO);
        task.committer().claim(partitions);
        List<CommitSummary> summaries = new ArrayList<>();
        long offset = 0;
        for (int round = 0; round <= rounds; round++) {
            for (TopicPartition tp : partitions) {
                for (int r = 0; r < 4; r++) {
                    task.add(tp, offset + r, "b" + (r % 2));
                }
            }
            offset += 4;
            summaries.add(task.commit());
        }
        CommitSummary first = summaries.get(0);
        List<CommitSummary> existing = summaries.subList(1, summaries.size());
        System.out.printf(Locale.ROOT, "Batch over %d tables, %d partitions, %d files%n", first.landed().tables(),
                first.landed().partitions(), first.landed().files());
        System.out.printf(Locale.ROOT, "  new partitions (1 batch):      intent %d ms, add_partitions %d ms "
                + "(%d calls), ledger marker (the atomic write) %d ms, state %d ms; metastore total %d ms%n",
                first.steps().intentMs(), first.steps().registeringMs(), first.landed().tables(),
                first.steps().markingMs(), first.steps().stateMs(),
                metastoreMs(first));
        System.out.printf(Locale.ROOT, "  existing partitions (median of %d batches): intent %d ms, "
                + "add_partitions %d ms, ledger marker (the atomic write) %d ms, state %d ms; metastore total "
                + "%d ms%n", existing.size(), median(existing, s -> s.steps().intentMs()),
                median(existing, s -> s.steps().registeringMs()), median(existing, s -> s.steps().markingMs()),
                median(existing, s -> s.steps().stateMs()), median(existing, CommitCostBenchmark::metastoreMs));
    }

    /** Claiming partitions after a restart: with no committed files, then with {@code files} committed files. */
    private static void recovery(CommitRig rig, int files, int rounds) {
        List<TopicPartition> partitions = List.of(new TopicPartition("deep", 0), new TopicPartition("deep", 1));
        int filesPerBatch = 100;
        List<Long> empty = claimTimes(rig, "deep-sink", partitions, rounds);
        CommitRig.Task task = rig.task("deep-sink", 0, FaultInjector.NONE, Fencing.AUTO);
        task.committer().claim(partitions);
        long offset = 0;
        long start = System.nanoTime();
        for (int batch = 0; batch < files / filesPerBatch; batch++) {
            for (int r = 0; r < filesPerBatch; r++) {
                task.add(partitions.get(r % 2), offset + r / 2, "b" + r);
            }
            offset += filesPerBatch / 2;
            task.commit();
        }
        System.out.printf(Locale.ROOT, "Committed %d files in %d batches in %.1f s%n", files, files / filesPerBatch,
                (System.nanoTime() - start) / 1e9);
        List<Long> full = claimTimes(rig, "deep-sink", partitions, rounds);

        CommitRig.Task crashing = rig.task("deep-sink", 0, point -> {
            if (point == FaultPoint.INTENT_DURABLE) {
                throw new Crash();
            }
        }, Fencing.AUTO);
        crashing.committer().claim(partitions);
        for (int r = 0; r < filesPerBatch; r++) {
            crashing.add(partitions.get(r % 2), offset + r / 2, "b" + r);
        }
        try {
            crashing.commit();
        } catch (Crash expected) {
            // the batch's intent is durable, nothing is moved yet
        }
        CommitRig.Task recovering = rig.task("deep-sink", 0, FaultInjector.NONE, Fencing.AUTO);
        long t0 = System.nanoTime();
        recovering.committer().claim(partitions);
        long rollForwardMs = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf(Locale.ROOT, "Recovery (claim on restart), median of %d: %d ms with no files, %d ms with "
                + "%d committed files (ratio %.2f); rolling forward an interrupted batch of %d files: %d ms%n",
                rounds, medianOf(empty), medianOf(full), files, medianOf(full) / (double) medianOf(empty),
                filesPerBatch, rollForwardMs);
    }

    private static List<Long> claimTimes(CommitRig rig, String connector, List<TopicPartition> partitions, int rounds) {
        List<Long> times = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            CommitRig.Task restarted = rig.task(connector, 0, FaultInjector.NONE, Fencing.AUTO);
            long t0 = System.nanoTime();
            restarted.committer().claim(partitions);
            times.add((System.nanoTime() - t0) / 1_000_000);
        }
        return times;
    }

    /** Every metastore call of a batch (the tables are cached after the first batch). */
    private static long metastoreMs(CommitSummary s) {
        CommitSummary.StepTimes steps = s.steps();
        return steps.intentMs() + steps.registeringMs() + steps.markingMs() + steps.stateMs();
    }

    private static long median(List<CommitSummary> summaries, ToLongFunction<CommitSummary> metric) {
        List<Long> values = new ArrayList<>();
        summaries.forEach(s -> values.add(metric.applyAsLong(s)));
        return medianOf(values);
    }

    private static long medianOf(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    static int intArg(String[] args, String name, int fallback) {
        return Integer.parseInt(stringArg(args, name, Integer.toString(fallback)));
    }

    static String stringArg(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    private static final class Crash extends RuntimeException {
    }
}
