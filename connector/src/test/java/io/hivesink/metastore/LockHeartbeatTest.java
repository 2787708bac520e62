package io.hivesink.metastore;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class LockHeartbeatTest {

    @Test
    void heartbeatsUntilClosedThenClosesItsConnection() throws Exception {
        AtomicInteger beats = new AtomicInteger();
        CountDownLatch closed = new CountDownLatch(1);
        InMemoryMetastore connection = new InMemoryMetastore() {
            @Override
            public synchronized boolean heartbeatLock(long lockId) {
                beats.incrementAndGet();
                return true;
            }

            @Override
            public void close() {
                closed.countDown();
            }
        };
        LockHeartbeat alive = LockHeartbeat.start(connection, 7, 20);
        Thread.sleep(300);
        alive.close();
        assertTrue(beats.get() >= 3, "heartbeats every 20 ms: " + beats.get());
        assertTrue(closed.await(5, TimeUnit.SECONDS), "the connection is closed");
    }

    /** A heartbeat hanging on a metastore that stopped answering does not hold the evolution that closes it. */
    @Test
    void aHangingHeartbeatDoesNotHoldTheCaller() {
        CountDownLatch hanging = new CountDownLatch(1);
        InMemoryMetastore connection = new InMemoryMetastore() {
            @Override
            public synchronized boolean heartbeatLock(long lockId) {
                hanging.countDown();
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return true;
            }
        };
        LockHeartbeat alive = LockHeartbeat.start(connection, 7, 10);
        long started = System.nanoTime();
        try {
            assertTrue(hanging.await(5, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        alive.close();
        long ms = (System.nanoTime() - started) / 1_000_000;
        assertTrue(ms < 10_000, "close() returned after " + ms + " ms");
    }
}
