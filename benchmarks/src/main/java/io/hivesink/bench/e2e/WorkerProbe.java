package io.hivesink.bench.e2e;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import javax.management.MBeanServerConnection;

import com.sun.management.OperatingSystemMXBean;

/**
 * Reads a worker JVM over remote JMX while a run lasts: the CPU time the whole process used (every thread of the
 * worker: consumer, task, encoding pool, HDFS client) and its heap, sampled every 100 ms for the peak.
 */
final class WorkerProbe implements AutoCloseable {

    private final OperatingSystemMXBean os;
    private final MemoryMXBean memory;
    private final long cpuAtStart;
    private final Thread sampler;
    private volatile long peakHeap;
    private volatile boolean running = true;

    WorkerProbe(MBeanServerConnection jmx) throws IOException {
        os = ManagementFactory.newPlatformMXBeanProxy(jmx, ManagementFactory.OPERATING_SYSTEM_MXBEAN_NAME,
                OperatingSystemMXBean.class);
        memory = ManagementFactory.newPlatformMXBeanProxy(jmx, ManagementFactory.MEMORY_MXBEAN_NAME,
                MemoryMXBean.class);
        cpuAtStart = os.getProcessCpuTime();
        sampler = new Thread(this::sample, "worker-heap-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    private void sample() {
        while (running) {
            try {
                peakHeap = Math.max(peakHeap, memory.getHeapMemoryUsage().getUsed());
                Thread.sleep(100);
            } catch (InterruptedException e) {
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

    long peakHeapBytes() {
        return peakHeap;
    }

    @Override
    public void close() {
        running = false;
        sampler.interrupt();
    }
}
