package io.hivesink.task;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import io.hivesink.security.TaskIdentity;

/**
 * Daemon threads named after their task, so a thread dump shows whose they are and they never block shutdown; each
 * runs as the task's identity, so that what the pool does on HDFS it does as the task.
 */
final class WorkerThreads implements ThreadFactory {

    private final String prefix;
    private final AtomicInteger count = new AtomicInteger();
    private final TaskIdentity identity;

    WorkerThreads(String taskName, TaskIdentity identity) {
        this.prefix = "hive-sink-" + taskName + "-worker-";
        this.identity = identity;
    }

    @Override
    public Thread newThread(Runnable runnable) {
        Thread thread = new Thread(identity.wrap(runnable), prefix + count.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    }
}
