package io.hivesink.commit;

/** The steps of a batch commit at which a crash test can kill the task, in protocol order. */
public enum FaultPoint {
    SOME_STAGED,
    ALL_STAGED,
    INTENT_DURABLE,
    HALF_MOVED,
    ALL_MOVED,
    HALF_REGISTERED,
    REGISTERED,
    MARKED
}
