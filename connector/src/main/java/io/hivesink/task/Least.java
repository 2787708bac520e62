package io.hivesink.task;

/**
 * The lesser of two values where a negative one means none: the soonest of two deadlines that may not be set, the
 * earliest of two offsets that may not be known. One rule, written once, so that "none" never wins a comparison.
 */
final class Least {

    private Least() {
    }

    /** The lesser of {@code a} and {@code b}, ignoring a negative one; negative if both are. */
    static long of(long a, long b) {
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }
}
