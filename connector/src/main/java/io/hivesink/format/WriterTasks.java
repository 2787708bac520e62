package io.hivesink.format;

import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;

/** The parts of a file a writer encodes on the task's pool: submitted, and their failures thrown as the writer's. */
public final class WriterTasks {

    private WriterTasks() {
    }

    /** Submits one part: a pool shut down (the task is stopping) is an IOException, which the commit retries. */
    public static <T> Future<T> submit(ExecutorService pool, Callable<T> part) throws IOException {
        try {
            return pool.submit(part);
        } catch (RejectedExecutionException e) {
            throw new IOException("The task's writer threads are shut down (the task is stopping)", e);
        }
    }

    /**
     * Stops the pool for good: running parts are interrupted and queued ones cancelled, so that a writer waiting on
     * one (a commit that outlived the task's stop) fails instead of waiting for a part that will never run.
     */
    public static void shutdown(ExecutorService pool) {
        for (Runnable queued : pool.shutdownNow()) {
            if (queued instanceof Future<?> part) {
                part.cancel(false);
            }
        }
    }

    /**
     * What a part failed with: an unchecked exception or error is thrown as it is (a bad datum names its record),
     * anything else returned as an IOException for the writer to throw.
     */
    public static IOException failure(ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return cause instanceof IOException io ? io : new IOException(cause);
    }
}
