package io.hivesink.task;

import java.util.function.Supplier;

import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.config.MetastoreConfig;

/**
 * A start-up step that waits for a service that is away (no metastore answers; HDFS is down, restarting or in safe
 * mode) instead of failing the task: Connect does not restart a task whose start failed, so a short outage during a
 * deployment or a rebalance would take it down for good. The step is tried again after pauses from 1 s doubling to
 * 30 s, each try logged, for up to {@code hive.metastore.start.wait.ms}. A service that answers and refuses
 * (permissions, SASL, a release it does not serve) fails the task at once: only {@code away} is waited out.
 */
final class StartWait {

    private static final Logger log = LoggerFactory.getLogger(StartWait.class);
    private static final long FIRST_PAUSE_MS = 1_000;
    private static final long MAX_PAUSE_MS = 30_000;

    private StartWait() {
    }

    /**
     * Runs {@code step} until it does not throw {@code away}, or the wait is over.
     *
     * @param what what is waited for, for the log ("No metastore answers yet")
     * @param tooLong turns the last failure into the error the task fails with, once the wait is over
     */
    static <T, E extends RuntimeException> T until(String what, long waitMs, Class<E> away, Supplier<T> step,
            java.util.function.BiFunction<E, String, RuntimeException> tooLong) {
        long deadline = System.nanoTime() + waitMs * 1_000_000;
        long pauseMs = FIRST_PAUSE_MS;
        for (int attempt = 1; ; attempt++) {
            try {
                return step.get();
            } catch (RuntimeException e) {
                if (!away.isInstance(e)) {
                    throw e;
                }
                long leftMs = (deadline - System.nanoTime()) / 1_000_000;
                if (leftMs <= 0) {
                    throw tooLong.apply(away.cast(e), " The task waited " + (waitMs / 1000) + " s for it ("
                            + MetastoreConfig.METASTORE_START_WAIT_MS + ").");
                }
                long sleepMs = Math.min(pauseMs, leftMs);
                log.warn("{} (try {}); the task waits {} ms and tries again, for up to {} ms more ({}): {}", what,
                        attempt, sleepMs, leftMs, MetastoreConfig.METASTORE_START_WAIT_MS, e.getMessage());
                try {
                    Thread.sleep(sleepMs);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new ConnectException("Interrupted while waiting: " + what, interrupted);
                }
                pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
            }
        }
    }
}
