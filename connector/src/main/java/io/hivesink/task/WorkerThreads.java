package io.hivesink.task;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads named after their task, so a thread dump shows whose they are and they never block shutdown. */
final class WorkerThreads implements ThreadFactory {

    private final String prefix;
    private final AtomicInteger count = new AtomicInteger();

    WorkerThreads(String taskName) {
        this.prefix = "hive-sink-" + taskName + "-worker-";
    }

    @Override
    public Thread newThread(Runnable runnable) {
        Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    }
}
