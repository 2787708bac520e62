package io.hivesink.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.hivesink.bench.e2e.ThreadCpu.Part;

/** A worker's threads fall to the part they work for by the names Connect, the sinks and HDFS give them. */
class ThreadCpuTest {

    @Test
    void connectsTaskThreadsAreTheTaskPart() {
        assertEquals(Part.TASK, Part.of("task-thread-e2e_003-1"));
    }

    @Test
    void bothSinksOwnThreadsAreTheSinkPart() {
        assertEquals(Part.SINK, Part.of("hive-sink-e2e_003-0-worker-2"));
        assertEquals(Part.SINK, Part.of("hive-sink-e2e_003-0-commit"));
        assertEquals(Part.SINK, Part.of("iceberg-committer-0"));
        assertEquals(Part.SINK, Part.of("iceberg-coord"));
    }

    @Test
    void theHdfsClientsStreamersAckReadersAndConnectionsAreTheHdfsPart() {
        // Linux keeps 15 characters of a thread's name
        assertEquals(Part.HDFS, Part.of("DataStreamer fo"));
        assertEquals(Part.HDFS, Part.of("ResponseProcess"));
        assertEquals(Part.HDFS, Part.of("IPC Client (184"));
    }

    @Test
    void theCompilersAndTheCollectorsThreadsAreTheirOwnParts() {
        assertEquals(Part.JIT, Part.of("C2 CompilerThre"));
        assertEquals(Part.JIT, Part.of("C1 CompilerThre"));
        assertEquals(Part.GC, Part.of("GC Thread#1"));
        assertEquals(Part.GC, Part.of("G1 Conc#0"));
        assertEquals(Part.GC, Part.of("VM Thread"));
    }

    @Test
    void everyOtherThreadIsOther() {
        assertEquals(Part.OTHER, Part.of("DistributedHerd"));
        assertEquals(Part.OTHER, Part.of("kafka-coordinat"));
        assertEquals(Part.OTHER, Part.of("RMI TCP Connect"));
    }

    @Test
    void aStatLinesCpuTimeIsItsUserAndSystemTicksWhateverTheNameHolds() {
        String stat = "4242 (task-thread-e2e) S 1 4200 4200 0 -1 4194368 5 0 0 0 873 41 0 0 20 0 42 0 1234 0 0";
        assertEquals(914, ThreadCpu.cpuTicks(stat));
        assertEquals(914, ThreadCpu.cpuTicks(stat.replace("task-thread-e2e", "IPC Client (1)")));
    }

    @Test
    void theCpuOfAProcessGrowsAsItWorksAndOfAProcessThatIsGoneIsNone() {
        org.junit.jupiter.api.Assumptions.assumeTrue(ThreadCpu.available(), "Linux's /proc");
        long self = ProcessHandle.current().pid();
        double before = ThreadCpu.processSeconds(self);
        long sum = 0;
        long until = System.nanoTime() + 300_000_000L; // 30 ticks of work: the counter moves by whole ticks
        while (System.nanoTime() < until) {
            sum += Long.numberOfTrailingZeros(sum + until);
        }
        double after = ThreadCpu.processSeconds(self);
        assertTrue(after > before, before + " then " + after + " (" + sum + ")");
        assertTrue(Double.isNaN(ThreadCpu.processSeconds(Long.MAX_VALUE)));
    }

    @Test
    void aLiveThreadIsReadWithItsNameAndAnEndedOneKeepsItsLastSample() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ThreadCpu.available(), "Linux's /proc");
        ThreadCpu cpu = new ThreadCpu(ProcessHandle.current().pid());
        java.util.concurrent.CountDownLatch spun = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch sampled = new java.util.concurrent.CountDownLatch(1);
        Thread busy = new Thread(() -> {
            long end = System.nanoTime() + 300_000_000L;
            double x = 0;
            while (System.nanoTime() < end) {
                x += Math.sqrt(x + 1);
            }
            spun.countDown();
            try {
                sampled.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            assertFalse(Double.isNaN(x));
        }, "task-thread-probe-0");
        busy.start();
        spun.await();
        cpu.sample();
        sampled.countDown();
        busy.join();

        ThreadCpu.CpuSplit split = cpu.split(10);
        assertTrue(split.task() >= 0.1, "a thread that spun 300 ms used " + split.task() + " s");
        assertTrue(cpu.busiest(3).contains("task-thread-pro"), cpu.busiest(3));
        assertEquals(10 - split.task() - split.sink() - split.hdfs() - split.jit() - split.gc(), split.rest(), 1e-9);
    }
}
