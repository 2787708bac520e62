package io.hivesink.commit;

import java.util.HashMap;
import java.util.Map;

import io.hivesink.metastore.InMemoryMetastore;

/** For tests of other packages: a task's state table in the default state database, as the metastore holds it. */
public final class StateLocksAccess {

    private static final String DATABASE = "hive_sink";

    private StateLocksAccess() {
    }

    /** The parameters of the state table of {@code task} of the connector whose Hive-safe name is given. */
    public static Map<String, String> parameters(InMemoryMetastore metastore, String connectorTable, int task) {
        return new HashMap<>(metastore.tables.get(key(connectorTable, task)).getParameters());
    }

    /** Puts the table's parameters back as given: a write landing late, say. */
    public static void putParameters(InMemoryMetastore metastore, String connectorTable, int task,
            Map<String, String> params) {
        metastore.tables.get(key(connectorTable, task)).setParameters(new HashMap<>(params));
    }

    /** Stamps the state table as another instance does when it breaks a lock on it at {@code at}. */
    public static void stampLockBroken(InMemoryMetastore metastore, String connectorTable, int task, long at) {
        metastore.tables.get(key(connectorTable, task)).getParameters().put(StateTables.LOCK_BROKEN_AT,
                Long.toString(at));
    }

    /** A lock on the state table that nobody heartbeats, as an instance stopped inside a locked write leaves. */
    public static void silentLock(InMemoryMetastore metastore, String connectorTable, int task, String instance) {
        metastore.requestExclusiveLock(DATABASE, table(connectorTable, task), StateLocks.agentInfo(instance));
    }

    private static String key(String connectorTable, int task) {
        return DATABASE + "." + table(connectorTable, task);
    }

    private static String table(String connectorTable, int task) {
        return "hive_sink_state_" + connectorTable + "_" + task;
    }
}
