package io.hivesink.bench.e2e;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import javax.management.AttributeNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;

import com.sun.management.OperatingSystemMXBean;

/**
 * Reads a worker JVM over remote JMX while a run lasts: the CPU time the whole process used (every thread of the
 * worker: consumer, task, encoding pool, HDFS client) and how it split by thread ({@link ThreadCpu}), and its heap;
 * both sampled every 100 ms.
 */
final class WorkerProbe implements AutoCloseable {

    private final MBeanServerConnection jmx;
    private final OperatingSystemMXBean os;
    private final MemoryMXBean memory;
    private final long cpuAtStart;
    private final ThreadCpu threadCpu;
    private final long[] machineAtStart = machineTicks();
    private final long metastorePid;
    private final double metastoreCpuAtStart;
    private final double ownCpuAtStart = ThreadCpu.processSeconds(ProcessHandle.current().pid());
    private final Thread sampler;
    private volatile long peakHeap;
    private volatile boolean running = true;

    /**
     * @param jmx the worker's JMX connection
     * @param pid the worker's process id, for its threads' CPU times (see {@link ThreadCpu})
     * @param metastorePid the metastore's process id, for {@link #outsideTheWorker()}
     */
    WorkerProbe(MBeanServerConnection jmx, long pid, long metastorePid) throws IOException {
        this.jmx = jmx;
        this.metastorePid = metastorePid;
        this.metastoreCpuAtStart = ThreadCpu.processSeconds(metastorePid);
        os = ManagementFactory.newPlatformMXBeanProxy(jmx, ManagementFactory.OPERATING_SYSTEM_MXBEAN_NAME,
                OperatingSystemMXBean.class);
        memory = ManagementFactory.newPlatformMXBeanProxy(jmx, ManagementFactory.MEMORY_MXBEAN_NAME,
                MemoryMXBean.class);
        cpuAtStart = os.getProcessCpuTime();
        threadCpu = ThreadCpu.available() ? new ThreadCpu(pid) : null;
        sampler = new Thread(this::sample, "worker-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    private void sample() {
        while (running) {
            try {
                peakHeap = Math.max(peakHeap, memory.getHeapMemoryUsage().getUsed());
                if (threadCpu != null) {
                    threadCpu.sample();
                }
                Thread.sleep(100);
            } catch (InterruptedException | IOException e) {
                return;
            } catch (RuntimeException e) {
                // the worker is going away: the peak so far stands
                return;
            }
        }
    }

    /** CPU seconds the worker used since the probe started. */
    double cpuSeconds() {
        return (os.getProcessCpuTime() - cpuAtStart) / 1e9;
    }

    /** The worker's CPU since the probe started, split by who used it. */
    ThreadCpu.CpuSplit cpuSplit() throws IOException {
        return threadCpu == null ? ThreadCpu.CpuSplit.unsplit(cpuSeconds()) : threadCpu.split(cpuSeconds());
    }

    /** The threads that used the most CPU since the probe started, for the run's log line. */
    String busiestThreads(int count) {
        return threadCpu == null ? "(not on Linux: no per-thread CPU)" : threadCpu.busiest(count);
    }

    /**
     * The CPU the rest of the machine used since the probe started: this JVM (the broker,
     * HDFS, the benchmark's clock and probe) and the metastore, which the sinks' and the clock's calls keep busy.
     */
    E2eRun.Outside outsideTheWorker() {
        return new E2eRun.Outside(ThreadCpu.processSeconds(ProcessHandle.current().pid()) - ownCpuAtStart,
                ThreadCpu.processSeconds(metastorePid) - metastoreCpuAtStart);
    }

    /**
     * How busy the machine's cores were since the probe started (1.0: every core all the time), whoever used them:
     * the worker, the broker, HDFS and the metastore share this machine.
     */
    double machineBusy() {
        long[] now = machineTicks();
        long total = now[0] - machineAtStart[0];
        return total <= 0 ? Double.NaN : 1.0 - (double) (now[1] - machineAtStart[1]) / total;
    }

    /** All CPU ticks and idle ones (idle and iowait), from /proc/stat; zeros where there is none. */
    private static long[] machineTicks() {
        try {
            String[] fields = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat")).get(0).trim()
                    .split("\\s+", -1);
            long total = 0;
            for (int i = 1; i < fields.length; i++) {
                total += Long.parseLong(fields[i]);
            }
            return new long[] {total, Long.parseLong(fields[4]) + Long.parseLong(fields[5])};
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0};
        }
    }

    /**
     * Seconds hive-sink's tasks of this connector stood still in {@code put()} while batches closed, summed over the
     * tasks (their {@code batch-close-stall-time-ms-total} metric).
     */
    double closeStallSeconds(String connector) throws IOException {
        double ms = 0;
        for (double taskMs : taskMetric(connector, "batch-close-stall-time-ms-total")) {
            ms += taskMs;
        }
        return ms / 1000;
    }

    /**
     * How long a batch took from its close to its commit (writing its files included), in ms: the average over the
     * tasks of their commit-time-ms-avg (NaN if no task committed).
     */
    double commitMs(String connector) throws IOException {
        double sum = 0;
        int tasks = 0;
        for (double avg : taskMetric(connector, "commit-time-ms-avg")) {
            if (!Double.isNaN(avg)) {
                sum += avg;
                tasks++;
            }
        }
        return tasks == 0 ? Double.NaN : sum / tasks;
    }

    /** One metric of each of the connector's tasks that has it. */
    private List<Double> taskMetric(String connector, String metric) throws IOException {
        List<Double> values = new ArrayList<>();
        try {
            for (ObjectName task : jmx.queryNames(new ObjectName("kafka.connect:type=plugins,connector="
                    + connector + ",task=*"), null)) {
                try {
                    values.add(((Number) jmx.getAttribute(task, metric)).doubleValue());
                } catch (AttributeNotFoundException e) {
                    // a worker that registered the task's metrics under other names: nothing to add
                }
            }
        } catch (JMException e) {
            throw new IOException("cannot read the tasks' metrics of " + connector, e);
        }
        return values;
    }

    long peakHeapBytes() {
        return peakHeap;
    }

    @Override
    public void close() {
        running = false;
        sampler.interrupt();
    }
}
