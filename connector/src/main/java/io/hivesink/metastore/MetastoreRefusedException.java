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
     * Whether the metastore's words say its error may pass on its own: its database unreachable, busy, deadlocked or
     * timing out, or the metastore telling the caller to try again.
     */
    public static boolean mayPass(String message) {
        if (message == null) {
            return true;
        }
        String words = message.toLowerCase(java.util.Locale.ROOT);
        for (String passing : PASSING) {
            if (words.contains(passing)) {
                return true;
            }
        }
        return false;
    }

    private static final String[] PASSING = {
        "deadlock", "lock wait", "timeout", "timed out", "connection", "communications link", "could not open",
        "unable to open", "try again", "retry", "transaction", "too many", "serialization failure", "busy",
        "unavailable", "socket", "closed", "shutdown", "shut down",
    };
}
