package io.hivesink.task;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.connect.errors.ConnectException;

import io.hivesink.commit.CommitSummary;
import io.hivesink.security.TaskIdentity;

/**
 * Where a closed batch's commit runs while the task takes the next batch: one thread of its own, one commit at a
 * time. Writing, staging and registering a batch waits on HDFS and the metastore; on this thread that waiting no
 * longer keeps {@code put()} from returning, so the consumer keeps fetching and the encoding pool keeps working.
 * The task thread takes each outcome itself ({@link #await}), so commits stay in order and everything but the
 * commit's own work (metrics, logs, what to do after a failure) stays on the task thread.
 */
final class CommitLane implements AutoCloseable {

    private final ExecutorService thread;
    private Future<CommitSummary> running;

    CommitLane(String taskName, TaskIdentity identity) {
        this.thread = Executors.newSingleThreadExecutor(runnable -> {
            Thread commit = new Thread(identity.wrap(runnable), "hive-sink-" + taskName + "-commit");
            commit.setDaemon(true);
            return commit;
        });
    }

    /** Starts a commit; the one before must have been awaited. */
    void start(Callable<CommitSummary> commit) {
        if (running != null) {
            throw new IllegalStateException("a commit is already running");
        }
        running = thread.submit(commit);
    }

    /** Whether a commit started and its outcome was not taken yet. */
    boolean busy() {
        return running != null;
    }

    /** Whether the running commit has finished, so that {@link #await} returns at once. */
    boolean done() {
        return running != null && running.isDone();
    }

    /** Waits for the running commit and returns its summary, or throws what it threw. */
    CommitSummary await() {
        Future<CommitSummary> commit = running;
        running = null;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return commit.get();
                } catch (InterruptedException e) {
                    // the commit runs on regardless: its outcome decides what the task does next
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new ConnectException("A batch's commit failed", cause);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Lets a running commit finish for a while (a crash in the middle is recovered at the next start anyway). */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
