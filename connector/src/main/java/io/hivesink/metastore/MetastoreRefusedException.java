package io.hivesink.metastore;

/**
 * The metastore answered a call with an error of its own that its words do not show to be passing (its database away
 * or busy): a refusal that trying again may not cure (a column Hive rejects, a value too long for its database, a
 * permission on the table's directory). Still retriable, since some such errors do pass, but a caller that keeps
 * meeting one gives up after a bound ({@link io.hivesink.task.Refusals}), with the metastore's words.
 */
public final class MetastoreRefusedException extends MetastoreException {

    private static final long serialVersionUID = 1L;

    public MetastoreRefusedException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Whether the metastore's words say its error may pass on its own: its database or its FileSystem unreachable,
     * busy, deadlocked, timing out, starting or in safe mode, or the metastore telling the caller to try again. Only
     * the first line is read: the metastore appends stack traces whose frames name retrying and transactions
     * whatever the error.
     */
    public static boolean mayPass(String message) {
        if (message == null) {
            return true;
        }
        int end = message.indexOf('\n');
        String words = (end < 0 ? message : message.substring(0, end)).toLowerCase(java.util.Locale.ROOT);
        for (String passing : PASSING) {
            if (words.contains(passing)) {
                return true;
            }
        }
        return false;
    }

    private static final String[] PASSING = {
        "deadlock", "lock wait", "timeout", "timed out", "connection", "communications link", "could not open",
        "unable to open", "try again", "retry", "retriable", "transaction", "too many", "serialization failure",
        "busy", "unavailable", "socket", "closed", "shutdown", "shut down", "safe mode", "standby", "starting up",
        "read-only", "read only", "recovery", "not available",
    };
}
