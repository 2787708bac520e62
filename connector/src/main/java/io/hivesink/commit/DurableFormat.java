package io.hivesink.commit;

import java.util.Map;

import org.apache.kafka.connect.errors.ConnectException;

/**
 * The formats the connector keeps between runs: a batch's manifest on the FileSystem, a task's state and a batch's
 * ledger marker in the metastore. Each is written with its version, and a reader refuses a version it does not know
 * rather than misread it: a misread manifest or offset could lose or duplicate records. A value with no version was
 * written before the formats carried one, and is version 1.
 */
public enum DurableFormat {
    MANIFEST("hive-sink.manifest.format", "manifest"),
    TASK_STATE("hive-sink.state.format", "task state"),
    LEDGER_MARKER("hive-sink.ledger.format", "ledger marker");

    /** The version this release writes, and the only one it reads. */
    public static final int CURRENT = 1;

    private final String key;
    private final String what;

    DurableFormat(String key, String what) {
        this.key = key;
        this.what = what;
    }

    /** Where the version is kept: an Avro file's metadata key, or a metastore parameter. */
    public String key() {
        return key;
    }

    /** Records the current version in parameters about to be written. */
    void stamp(Map<String, String> params) {
        stamp(params, CURRENT);
    }

    /** Records a version in parameters about to be written: a later one, that older releases refuse to read. */
    void stamp(Map<String, String> params, int version) {
        params.put(key, Integer.toString(version));
    }

    /**
     * Refuses a version other than {@link #CURRENT}.
     *
     * @param version as stored, null if none was
     * @param where   what holds it, for the message: e.g. {@code of task 3 in table db.t}
     * @throws ConnectException naming the value, its version and what to do
     */
    void check(String version, String where) {
        check(version, where, CURRENT);
    }

    /**
     * Refuses a version other than {@link #CURRENT} up to {@code newest}.
     *
     * @param newest the newest version of this format this release reads
     */
    void check(String version, String where, int newest) {
        for (int known = CURRENT; known <= newest; known++) {
            if (version == null || version.equals(Integer.toString(known))) {
                return;
            }
        }
        String reads = newest == CURRENT ? "version " + CURRENT + " only" : "versions " + CURRENT + " to " + newest;
        throw new ConnectException("The " + what + " " + where + " is in format version " + version + " ("
                + key + "), which this hive-sink release does not read: it reads " + reads + ". A "
                + "newer hive-sink release wrote it; run that release (or a newer one) again. hive-sink cannot go "
                + "back to an older release while the metastore holds state in a newer format.");
    }
}
