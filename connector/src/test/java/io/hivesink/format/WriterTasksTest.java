package io.hivesink.format;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** A writer waiting on its parts ends when the task's pool stops, whether a part was running or still queued. */
class WriterTasksTest {

    @Test
    void aPartStillQueuedWhenThePoolStopsFailsTheWriterWaitingOnIt() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        CountDownLatch never = new CountDownLatch(1);
        Future<Object> running = WriterTasks.submit(pool, () -> {
            never.await(); // interrupted by the stop
            return null;
        });
        Future<Object> queued = WriterTasks.submit(pool, () -> "never runs");

        WriterTasks.shutdown(pool);

        assertThrows(CancellationException.class, () -> queued.get(10, TimeUnit.SECONDS),
                "a queued part is cancelled, not left for its writer to wait on");
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS), "the running part was interrupted");
        assertTrue(running.isDone());
        IOException stopped = assertThrows(IOException.class, () -> WriterTasks.submit(pool, () -> null));
        assertTrue(stopped.getMessage().contains("the task is stopping"), stopped.getMessage());
    }
}
