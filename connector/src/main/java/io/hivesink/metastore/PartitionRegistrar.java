package io.hivesink.metastore;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.table.PartitionValues;

/**
 * Registers a table's new partitions in the metastore, remembering which exist so that the metastore is asked once
 * per table, not once per batch.
 *
 * <p>A new partition takes the table's columns as they are in the metastore at that moment, not as the task cached
 * them: Hive and Trino read a Parquet or ORC partition through its own columns, and an evolution another task made
 * with CASCADE reached only the partitions that existed then. A partition registered with the cached columns would
 * read the new column as NULL for that whole hour or day, while Spark, reading through the table's schema, shows it.
 * The same holds for a batch rolled forward by a task whose cache is older than the batch.
 */
final class PartitionRegistrar {

    /**
     * Partitions registered per metastore call. One call is one metastore transaction writing all its partitions'
     * rows in a few statements: a thousand partitions in one call overflowed Derby's parser (a StackOverflowError in
     * Hive 4.0.1's direct SQL) and hold the metastore's locks long on any database. Each call adds only partitions
     * that do not exist, so a retry after some calls went through adds the rest.
     */
    static final int PARTITIONS_PER_CALL = 100;

    /** How many times new partitions are given the columns of an evolution that raced their registration. */
    private static final int CATCH_UP_ROUNDS = 5;

    private static final Logger log = LoggerFactory.getLogger(PartitionRegistrar.class);

    private final Metastore metastore;
    private final String database;

    PartitionRegistrar(Metastore metastore, String database) {
        this.metastore = metastore;
        this.database = database;
    }

    /**
     * Registers the partitions the table does not have yet, {@link #PARTITIONS_PER_CALL} per call, with the table's
     * current columns; returns how many were new.
     */
    int register(HiveTable table, Collection<PartitionValues> partitions) {
        if (!table.partitionSpec().isPartitioned()) {
            return 0;
        }
        Set<String> existing = table.partitionNames();
        if (existing == null) {
            existing = new HashSet<>(metastore.partitionNames(database, table.name()));
            table.partitionNames(existing);
        }
        List<PartitionValues> missing = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (PartitionValues values : partitions) {
            if (!existing.contains(values.path()) && seen.add(values.path())) {
                missing.add(values);
            }
        }
        if (missing.isEmpty()) {
            return 0;
        }
        List<FieldSchema> columns = currentColumns(table);
        List<Partition> added = new ArrayList<>(missing.size());
        for (int from = 0; from < missing.size(); from += PARTITIONS_PER_CALL) {
            List<PartitionValues> call = missing.subList(from, Math.min(missing.size(), from + PARTITIONS_PER_CALL));
            List<Partition> adding = new ArrayList<>(call.size());
            for (PartitionValues values : call) {
                Partition partition = partition(table, values);
                partition.getSd().setCols(copyOf(columns));
                adding.add(partition);
            }
            metastore.addPartitions(adding);
            added.addAll(adding);
            for (PartitionValues values : call) {
                existing.add(values.path());
            }
        }
        catchUpWithEvolution(table, added, columns);
        return missing.size();
    }

    /** The metastore definition of one of the table's partitions, located where Hive would put it. */
    Partition partition(HiveTable table, PartitionValues values) {
        StorageDescriptor sd = new StorageDescriptor(table.storage());
        sd.setLocation(table.location() + "/" + values.path());
        Partition partition = new Partition();
        partition.setDbName(database);
        partition.setTableName(table.name());
        partition.setValues(new ArrayList<>(values.values()));
        partition.setSd(sd);
        partition.setParameters(new HashMap<>());
        return partition;
    }

    private List<FieldSchema> currentColumns(HiveTable table) {
        return metastore.getTable(database, table.name()).map(t -> t.getSd().getCols()).orElseThrow(
                () -> new MetastoreException("Table " + database + "." + table.name() + " was dropped while a batch "
                        + "was being committed to it; re-create it (the batch's files are in place) or restore it "
                        + "from its definition.", null));
    }

    /**
     * An evolution that committed between this registrar's read of the columns and the partitions' addition, or
     * whose CASCADE listed the partitions before they were added, left {@code added} with older columns: they are
     * given the table's columns again until the table stands still. An evolution after that reaches them by its own
     * CASCADE.
     */
    private void catchUpWithEvolution(HiveTable table, List<Partition> added, List<FieldSchema> used) {
        List<FieldSchema> columns = used;
        for (int round = 0; round < CATCH_UP_ROUNDS; round++) {
            List<FieldSchema> now = currentColumns(table);
            if (now.equals(columns)) {
                return;
            }
            columns = now;
            log.info("Table {}.{} evolved while {} of its partitions were registered; giving them its columns",
                    database, table.name(), added.size());
            for (int from = 0; from < added.size(); from += PARTITIONS_PER_CALL) {
                List<Partition> call = added.subList(from, Math.min(added.size(), from + PARTITIONS_PER_CALL));
                for (Partition partition : call) {
                    partition.getSd().setCols(copyOf(columns));
                }
                metastore.alterPartitions(database, table.name(), call);
            }
        }
        log.warn("Table {}.{} kept evolving while {} of its partitions were registered; they may lack its newest "
                + "columns until its next evolution", database, table.name(), added.size());
    }

    private static List<FieldSchema> copyOf(List<FieldSchema> columns) {
        List<FieldSchema> copy = new ArrayList<>(columns.size());
        columns.forEach(column -> copy.add(new FieldSchema(column)));
        return copy;
    }
}
