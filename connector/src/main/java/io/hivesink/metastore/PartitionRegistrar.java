package io.hivesink.metastore;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
     * current columns, then makes sure they still have them ({@link #catchUp}); returns how many it added.
     *
     * @param again whether an earlier try may have added some of them (a retried or rolled-forward batch): those
     *              that exist are then checked as well, at the cost of reading them
     */
    int register(HiveTable table, Collection<PartitionValues> partitions, boolean again) {
        if (!table.partitionSpec().isPartitioned()) {
            return 0;
        }
        Set<String> existing = table.partitionNames();
        if (existing == null) {
            existing = new HashSet<>(metastore.partitionNames(database, table.name()));
            table.partitionNames(existing);
        }
        Map<List<String>, String> requested = new LinkedHashMap<>();
        List<PartitionValues> missing = new ArrayList<>();
        for (PartitionValues values : partitions) {
            if (requested.putIfAbsent(values.values(), values.path()) == null && !existing.contains(values.path())) {
                missing.add(values);
            }
        }
        if (missing.isEmpty() && !again) {
            return 0;
        }
        List<FieldSchema> columns = currentColumns(table);
        Set<String> added = new LinkedHashSet<>();
        for (int from = 0; from < missing.size(); from += PARTITIONS_PER_CALL) {
            List<PartitionValues> call = missing.subList(from, Math.min(missing.size(), from + PARTITIONS_PER_CALL));
            List<Partition> adding = new ArrayList<>(call.size());
            for (PartitionValues values : call) {
                Partition partition = partition(table, values);
                partition.getSd().setCols(copyOf(columns));
                adding.add(partition);
            }
            for (Partition partition : metastore.addPartitions(adding)) {
                String path = requested.get(partition.getValues());
                if (path != null) {
                    added.add(path);
                }
            }
        }
        // those this call did not add are read and checked: missing from the cache but added by a call whose answer
        // was lost (and which was sent again), or by another task at the same moment; and where an earlier try of
        // this batch may have stopped before it caught up, all the batch's partitions
        Set<String> unknown = new LinkedHashSet<>(again ? requested.values()
                : missing.stream().map(PartitionValues::path).toList());
        unknown.removeAll(added);
        catchUp(table, added, unknown, columns);
        for (PartitionValues values : missing) {
            existing.add(values.path()); // known to have the table's columns only now
        }
        return added.size();
    }

    /** The metastore definition of one of the table's partitions, at its first location. */
    Partition partition(HiveTable table, PartitionValues values) {
        StorageDescriptor sd = new StorageDescriptor(table.storage());
        sd.setLocation(table.firstLocation(values.path()));
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
     * Gives the table's columns to the partitions that lack them, until the table stands still. {@code added} were
     * added with {@code used}: they lack the table's columns if it evolved meanwhile (an evolution whose CASCADE
     * listed the partitions before they were in). {@code unknown} existed already, added by an earlier try that
     * may have stopped before it caught up, or by another task: they are read and checked. An evolution after this
     * reaches them all by its own CASCADE. A partition is altered as the metastore has it, only its columns changed.
     */
    private void catchUp(HiveTable table, Set<String> added, Set<String> unknown, List<FieldSchema> used) {
        Set<String> holding = new LinkedHashSet<>(added); // the partitions known to have `known`
        Set<String> check = new LinkedHashSet<>(unknown);
        List<FieldSchema> known = used;
        for (int round = 0; round < CATCH_UP_ROUNDS; round++) {
            List<FieldSchema> now = currentColumns(table);
            if (!now.equals(known)) {
                check.addAll(holding);
            }
            if (check.isEmpty()) {
                return;
            }
            List<String> names = new ArrayList<>(check);
            int altered = 0;
            int read = 0;
            for (int from = 0; from < names.size(); from += PARTITIONS_PER_CALL) {
                List<Partition> stale = new ArrayList<>();
                List<Partition> partitions = metastore.partitionsByNames(database, table.name(),
                        names.subList(from, Math.min(names.size(), from + PARTITIONS_PER_CALL)));
                read += partitions.size();
                for (Partition partition : partitions) {
                    if (!now.equals(partition.getSd().getCols())) {
                        partition.getSd().setCols(copyOf(now));
                        stale.add(partition);
                    }
                }
                if (!stale.isEmpty()) {
                    metastore.alterPartitions(database, table.name(), stale);
                    altered += stale.size();
                }
            }
            if (read < names.size()) {
                log.warn("Table {}.{}: {} of the {} partitions being registered could not be read back by name "
                        + "(dropped meanwhile, or named differently by the metastore); their columns are not checked",
                        database, table.name(), names.size() - read, names.size());
            }
            if (altered > 0) {
                log.info("Gave {} partitions of table {}.{} the table's columns, which an evolution made while they "
                        + "were registered", altered, database, table.name());
            }
            holding.addAll(check);
            check.clear();
            known = now;
        }
        log.warn("Table {}.{} kept evolving while {} of its partitions were registered; they may lack its newest "
                + "columns until its next evolution", database, table.name(), holding.size());
    }

    private static List<FieldSchema> copyOf(List<FieldSchema> columns) {
        List<FieldSchema> copy = new ArrayList<>(columns.size());
        columns.forEach(column -> copy.add(new FieldSchema(column)));
        return copy;
    }
}
