package io.hivesink.metastore;

/** Told of every metastore call, for metrics. */
@FunctionalInterface
public interface MetastoreCallObserver {

    MetastoreCallObserver NONE = (millis, attempts, failed) -> {};

    /**
     * One call ended.
     *
     * @param millis how long the call took, its repeats included
     * @param attempts how many times it was made (more than one after a lost connection)
     * @param failed whether it ended with an error rather than an answer
     */
    void called(long millis, int attempts, boolean failed);
}
