package io.hivesink.bench.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Splits a worker's CPU time by who used it, so that a run shows whether the sink's own work or the work every sink
 * pays (Connect's task thread: the consumer and the converter; the HDFS client; the JIT compiler; the garbage
 * collector) sets its pace. It reads the worker's threads from Linux's {@code /proc/<pid>/task}, in this process, so
 * the worker spends nothing on it: the JVM gives each thread its Java name there (cut to 15 characters), and the
 * compiler and collector threads, which JMX does not list, are there too. A thread that ends (HDFS starts two per file
 * written) counts with its last sample, so up to one sampling interval of each such thread falls to the rest.
 */
final class ThreadCpu {

    /** Who a thread works for, by its name as Linux holds it (at most 15 characters). */
    enum Part {
        /** Connect's task threads: the consumer's fetches and parsing, the converter, the sink's {@code put()}. */
        TASK,
        /** The sink's own threads: hive-sink's encoding pools and commit threads, Iceberg's committer and workers. */
        SINK,
        /** The HDFS client's threads: a streamer and an ack reader per file written, the RPC connections. */
        HDFS,
        /** The JIT compilers. */
        JIT,
        /** The garbage collector's threads and the VM thread, which runs its pauses. */
        GC,
        OTHER;

        static Part of(String threadName) {
            if (threadName.startsWith("task-thread-")) {
                return TASK;
            }
            if (threadName.startsWith("hive-sink-") || threadName.startsWith("iceberg-")) {
                return SINK;
            }
            if (threadName.startsWith("DataStreamer") || threadName.startsWith("ResponseProcess")
                    || threadName.startsWith("IPC Client") || threadName.startsWith("IPC Parameter")
                    || threadName.startsWith("LeaseRenewer")) {
                return HDFS;
            }
            if (threadName.startsWith("C1 CompilerThre") || threadName.startsWith("C2 CompilerThre")) {
                return JIT;
            }
            if (threadName.startsWith("GC Thread") || threadName.startsWith("G1 ")
                    || threadName.equals("VM Thread")) {
                return GC;
            }
            return OTHER;
        }
    }

    /**
     * CPU seconds of a run by part; {@code rest} is what the process used beyond the parts: its other threads, and
     * what threads that ended used after their last sample.
     */
    record CpuSplit(double task, double sink, double hdfs, double jit, double gc, double total) {

        /** The total alone, as runs of an earlier version of the benchmark measured it. */
        static CpuSplit unsplit(double total) {
            return new CpuSplit(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, total);
        }

        double rest() {
            return total - task - sink - hdfs - jit - gc;
        }
    }

    /** What Linux counts a thread's CPU time in ({@code getconf CLK_TCK}: USER_HZ, 100 on every architecture). */
    private static final double TICKS_PER_SECOND = 100;

    private final Path tasks;
    private final Map<String, Long> ticksAtStart = new HashMap<>();
    private final Map<String, Long> lastTicks = new HashMap<>();
    private final Map<String, String> names = new HashMap<>();

    /** Starts counting the threads of the process {@code pid} from now. */
    ThreadCpu(long pid) throws IOException {
        tasks = Path.of("/proc", Long.toString(pid), "task");
        sample();
        ticksAtStart.putAll(lastTicks);
    }

    /** Whether this machine shows a process's threads the Linux way. */
    static boolean available() {
        return Files.isDirectory(Path.of("/proc/self/task"));
    }

    /** Reads every live thread's CPU time and name. */
    synchronized void sample() throws IOException {
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
            for (Path thread : threads) {
                String stat;
                try {
                    stat = Files.readString(thread.resolve("stat"), StandardCharsets.UTF_8);
                } catch (NoSuchFileException e) {
                    continue; // ended since the listing
                }
                String tid = thread.getFileName().toString();
                names.put(tid, stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
                lastTicks.put(tid, cpuTicks(stat));
            }
        }
    }

    /** utime plus stime, fields 14 and 15 of a {@code stat} line, counted after the name (which may hold spaces). */
    static long cpuTicks(String stat) {
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ", -1);
        // after the name: state is field 3, so utime (14) and stime (15) are at 11 and 12
        return Long.parseLong(after[11]) + Long.parseLong(after[12]);
    }

    /** CPU seconds a whole process has used so far (its {@code /proc/<pid>/stat}); NaN where there is none. */
    static double processSeconds(long pid) {
        try {
            return cpuTicks(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat")))
                    / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** The split of {@code totalSeconds}, the process's CPU time over the same span, after a last sample. */
    synchronized CpuSplit split(double totalSeconds) throws IOException {
        sample();
        Map<Part, Double> seconds = new EnumMap<>(Part.class);
        byThread().forEach((name, s) -> seconds.merge(Part.of(name), s, Double::sum));
        return new CpuSplit(seconds.getOrDefault(Part.TASK, 0.0), seconds.getOrDefault(Part.SINK, 0.0),
                seconds.getOrDefault(Part.HDFS, 0.0), seconds.getOrDefault(Part.JIT, 0.0),
                seconds.getOrDefault(Part.GC, 0.0), totalSeconds);
    }

    /** The threads that used the most CPU, names with their numbers folded ("hive-sink-e#e_"). */
    synchronized String busiest(int count) {
        Map<String, Double> folded = new TreeMap<>();
        byThread().forEach((name, s) -> folded.merge(name.replaceAll("\\d+", "#"), s, Double::sum));
        StringBuilder out = new StringBuilder();
        folded.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(count)
                .forEach(e -> out.append(out.length() == 0 ? "" : ", ")
                        .append(String.format(Locale.ROOT, "%s %.1f s", e.getKey(), e.getValue())));
        return out.toString();
    }

    /** CPU seconds since the start by thread name (threads of one name summed). */
    private Map<String, Double> byThread() {
        Map<String, Double> seconds = new HashMap<>();
        lastTicks.forEach((tid, ticks) -> seconds.merge(names.get(tid),
                (ticks - ticksAtStart.getOrDefault(tid, 0L)) / TICKS_PER_SECOND, Double::sum));
        return seconds;
    }
}
