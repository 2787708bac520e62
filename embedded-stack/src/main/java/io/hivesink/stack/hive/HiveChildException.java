package io.hivesink.stack.hive;

/** A Hive child JVM failed to start, died, or did not answer in time. The child is stopped when this is thrown. */
public class HiveChildException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public HiveChildException(String message) {
        super(message);
    }

    public HiveChildException(String message, Throwable cause) {
        super(message, cause);
    }
}
