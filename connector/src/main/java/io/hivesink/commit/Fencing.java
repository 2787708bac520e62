package io.hivesink.commit;

import java.util.Locale;

/** How writes to a task's state are made conditional, so that a zombie's write fails. */
public enum Fencing {
    /** Pick compare-and-set if the metastore enforces it, else the lock API. */
    AUTO,
    /** {@code alter_table} with an expected parameter value, checked by the metastore (Hive 4.x, 2.3.10). */
    COMPARE_AND_SET,
    /**
     * An exclusive metastore lock on the state table around reading and writing it, for metastores that accept the
     * expected value and ignore it (3.x, 2.x before 2.3.10). Needs the metastore's transaction tables.
     */
    LOCKS;

    public String configValue() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Fencing fromConfig(String value) {
        return valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
    }
}
