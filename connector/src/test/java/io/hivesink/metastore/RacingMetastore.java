package io.hivesink.metastore;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import org.apache.avro.Schema;
import org.apache.hadoop.hive.metastore.api.Partition;

import io.hivesink.table.PartitionSpec;

/**
 * An in-memory metastore on which another task evolves table {@code orders} at a chosen moment of a registration:
 * just before the next partitions are added (its CASCADE misses them) or just before the next partitions are
 * altered; whose next alters can fail; and whose adds can be sent twice, the first answer lost.
 */
class RacingMetastore extends InMemoryMetastore {

    private record Evolution(HiveTables task, Schema schema, PartitionSpec spec) {
        void run() {
            task.ensureTable("orders", schema, spec);
        }
    }

    private final Deque<Evolution> atAdd = new ArrayDeque<>();
    private final Deque<Evolution> atAlter = new ArrayDeque<>();
    /** How many of the next alters fail. */
    int failingAlters;
    /** Whether each add is sent twice, its first answer lost (the second adds nothing). */
    boolean resendAdds;

    /** A task of its own evolves {@code orders} to {@code schema} just before the next partitions are added. */
    void evolveAtNextAdd(Schema schema, PartitionSpec spec) {
        atAdd.add(new Evolution(new HiveTables(this, "db", "file:/w", HiveTablesTest.DEFAULTS), schema, spec));
    }

    /** A task of its own evolves {@code orders} to {@code schema} just before the next partitions are altered. */
    void evolveAtNextAlter(Schema schema, PartitionSpec spec) {
        atAlter.add(new Evolution(new HiveTables(this, "db", "file:/w", HiveTablesTest.DEFAULTS), schema, spec));
    }

    @Override
    public synchronized List<Partition> addPartitions(List<Partition> added) {
        Evolution evolution = atAdd.poll();
        if (evolution != null) {
            evolution.run();
        }
        if (resendAdds) {
            super.addPartitions(added);
        }
        return super.addPartitions(added);
    }

    @Override
    public synchronized void alterPartitions(String database, String table, List<Partition> altered) {
        Evolution evolution = atAlter.poll();
        if (evolution != null) {
            evolution.run();
        }
        if (failingAlters > 0) {
            failingAlters--;
            throw new MetastoreException("injected: the metastore went away", null);
        }
        super.alterPartitions(database, table, altered);
    }
}
