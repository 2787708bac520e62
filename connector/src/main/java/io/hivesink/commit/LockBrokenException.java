package io.hivesink.commit;

/**
 * A write of a task state under a lock that was broken while the write was under way, or whose lock could not be
 * shown to have held: the write may have landed, over another writer's or under it. The instance stops, as a fenced
 * one does; unlike a refused write, the state it wrote may be durable, so nothing it staged is removed.
 */
public final class LockBrokenException extends TaskFencedException {

    private static final long serialVersionUID = 1L;

    LockBrokenException(String message, Throwable cause) {
        super(message, cause);
    }
}
