package io.hivesink.it.support;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.ObjectName;

import io.hivesink.stack.connect.ConnectWorkerProcess;

/**
 * Asks a worker for a full collection at a fixed interval (the {@code gc} operation of its
 * {@code java.lang:type=Memory} MBean, over JMX), so that its GC log records the live heap while a test runs. The
 * heap left after a young collection is no measure of what the tasks hold: it keeps the old generation's garbage
 * until a mixed collection, and swung by 130 MiB between identical runs; after a full collection only what is
 * reachable is left.
 */
public final class LiveHeapSampler implements AutoCloseable {

    private static final ObjectName MEMORY = memoryBean();

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "live-heap-sampler");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicInteger collections = new AtomicInteger();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final ScheduledFuture<?> requests;

    private LiveHeapSampler(ConnectWorkerProcess worker, Duration interval) {
        requests = timer.scheduleWithFixedDelay(() -> {
            try {
                worker.jmx().invoke(MEMORY, "gc", null, null);
                collections.incrementAndGet();
            } catch (Exception e) {
                // a worker that is gone fails the test through its own checks; keep the first cause for the message
                failure.compareAndSet(null, e);
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    public static LiveHeapSampler every(ConnectWorkerProcess worker, Duration interval) {
        return new LiveHeapSampler(worker, interval);
    }

    /** How many full collections the worker ran at the sampler's request; fails the test if it ran none. */
    public int collections() {
        int count = collections.get();
        if (count == 0) {
            throw new AssertionError("the worker ran no full collection at the test's request over JMX: "
                    + failure.get());
        }
        return count;
    }

    @Override
    public void close() {
        requests.cancel(true);
        timer.shutdownNow();
        try {
            timer.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ObjectName memoryBean() {
        try {
            return new ObjectName("java.lang:type=Memory");
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
    }
}
