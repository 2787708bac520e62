package io.hivesink.commit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.hive.metastore.TableType;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.connect.errors.ConnectException;

import io.hivesink.metastore.ConditionalAlter;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreException;
import io.hivesink.metastore.TableGuard;

/**
 * Each task keeps its {@link TaskState} in the parameters of a table of its own (no key that every task contends
 * on), and every write is a compare-and-set on a version parameter that changes with each write, so a writer
 * that read an older state can never overwrite a newer one. The tables live in a database of the connector's own
 * ({@link StateDatabase}), shared by every connector of the metastore, so each table also names the database its
 * connector lands in: two deployments that share a connector name would otherwise take each other's offsets.
 */
public final class StateTables {

    /** A task's state as read, with what a compare-and-set against it needs. */
    public record Stored(int task, TaskState state, String version, Table table) {
    }

    /**
     * Whose state the tables hold.
     *
     * @param connector the connector's name
     * @param tableName the connector's name made Hive-safe, part of the tables' names
     * @param tablesDatabase the database the connector's tables land in ({@code hive.database})
     */
    public record Deployment(String connector, String tableName, String tablesDatabase) {
    }

    static final String VERSION = "hive-sink.version";
    static final String KIND = "hive-sink.kind";
    static final String TABLES_DATABASE = "hive-sink.tables-database";
    /** The connector's own name: two names that become one table name in Hive must not share these tables. */
    static final String CONNECTOR = "hive-sink.connector";
    /**
     * When a writer last broke a lock on this state (epoch ms, the breaker's clock): a write its holder sent before
     * may still land over the state for a while, which a claim of its partitions waits out ({@link ProbationTerm}).
     */
    static final String LOCK_BROKEN_AT = "hive-sink.lock-broken-at";
    /**
     * The version the state had when an instance of its task last claimed it. A write that reaches the metastore late
     * puts back an older claim's, a claim made since a newer one's: which tells a claim undone by a late write from
     * one a newer instance made ({@link AssignmentClaims#recheck}).
     */
    static final String CLAIM_VERSION = "hive-sink.claim-version";

    private final Metastore metastore;
    private final String database;
    private final String prefix;
    private final Pattern namePattern;
    private final String location;
    private final Deployment deployment;
    private final String writer;
    private final StateLocks locks;
    private final LockedWrite lockedWrite;
    /** As configured; 0 derives it from the metastore ({@link #settleStaleBound}). */
    private final long configuredStaleLockMs;
    private boolean staleBoundFinal = true;
    private long writes;
    private Fencing fencing = Fencing.COMPARE_AND_SET;

    /**
     * @param database the database the state tables are in
     * @param location a directory for the tables' (always empty) locations
     * @param writer this task instance, part of every version it writes so versions are unique across writers
     * @param staleLockMs where writes are fenced by locks, how long a lock ahead of a writer may show no sign of life
     *     before it is taken for left behind and broken ({@link StateLocks}); 0 derives it from the metastore
     */
    public StateTables(Metastore metastore, String database, Deployment deployment, String location, String writer,
            long staleLockMs) {
        this.locks = new StateLocks(metastore, database, writer, staleLockMs > 0 ? staleLockMs : LockBound.FLOOR_MS);
        this.configuredStaleLockMs = staleLockMs;
        this.lockedWrite = new LockedWrite(metastore, database, locks, writer, deployment.connector());
        this.metastore = metastore;
        this.database = database;
        this.deployment = deployment;
        this.prefix = "hive_sink_state_" + deployment.tableName() + "_";
        this.namePattern = Pattern.compile(Pattern.quote(prefix) + "(\\d+)");
        this.location = location;
        this.writer = writer;
    }

    /** The database the state tables are in. */
    public String database() {
        return database;
    }

    /** The names of the connector's state tables in {@code in}, a database that exists. */
    public List<String> tableNamesIn(String in) {
        List<String> names = new ArrayList<>();
        for (String name : metastore.tableNames(in, prefix + "*")) {
            if (namePattern.matcher(name.toLowerCase(java.util.Locale.ROOT)).matches()) {
                names.add(name);
            }
        }
        return names;
    }

    public String tableName(int task) {
        return prefix + task;
    }

    /** Every task's state of this connector, in two metastore calls whatever the number of tasks. */
    public Map<Integer, Stored> readAll() {
        Map<Integer, Stored> states = new TreeMap<>();
        for (Table table : metastore.getTables(database, tableNamesIn(database))) {
            Matcher m = namePattern.matcher(table.getTableName().toLowerCase(java.util.Locale.ROOT));
            if (m.matches()) {
                int task = Integer.parseInt(m.group(1));
                states.put(task, StateParameters.decode(task, ours(table)));
            }
        }
        return states;
    }

    public Stored read(int task) {
        return metastore.getTable(database, tableName(task)).map(t -> StateParameters.decode(task, ours(t)))
                .orElseThrow(() -> new MetastoreException("The state table " + database + "." + tableName(task)
                        + " has disappeared from the metastore.", null));
    }

    /**
     * The table, if it is this deployment's (tables written before the database or the connector's name were
     * recorded count as ours).
     */
    private Table ours(Table table) {
        String name = database + "." + table.getTableName();
        String connector = table.getParameters() == null ? null : table.getParameters().get(CONNECTOR);
        if (connector != null && !connector.equals(deployment.connector())) {
            throw new ConnectException("Connectors '" + connector + "' and '" + deployment.connector() + "' both "
                    + "keep their state in " + name + ": in Hive both names become '" + deployment.tableName()
                    + "', and the two would fence each other and delete each other's staged batches. Rename one "
                    + "of them (Hive keeps letters, digits and '_', lower-cased, and makes anything else '_'), or give "
                    + "it a state.database and a staging.dir of its own. If this is one connector renamed, and it is "
                    + "to keep its offsets, run ALTER TABLE " + database + "." + prefix + "<task> SET "
                    + "TBLPROPERTIES ('" + CONNECTOR + "'='" + deployment.connector() + "') on each of its state "
                    + "tables while it is stopped.");
        }
        String landsIn = table.getParameters() == null ? null : table.getParameters().get(TABLES_DATABASE);
        if (landsIn != null && !landsIn.equals(deployment.tablesDatabase())) {
            throw new ConnectException("The state table " + name + " belongs to a connector named '"
                    + deployment.connector() + "' that lands in database " + landsIn + ", but this one lands in "
                    + deployment.tablesDatabase() + ". If two deployments share the name in this metastore, rename "
                    + "one, or give each a state.database of its own. If this connector moved from " + landsIn
                    + " to " + deployment.tablesDatabase() + " on purpose, drop its state tables (DROP TABLE "
                    + database + "." + prefix + "<task>, for each task) or set a new state.database: it then "
                    + "starts from the offsets Kafka holds for its consumer group.");
        }
        return table;
    }

    /** The task's state, its table created (empty) if this is the task's first run. */
    public Stored readOrCreate(int task) {
        if (metastore.getTable(database, tableName(task)).isEmpty()) {
            metastore.createTable(definition(task));
        }
        return read(task);
    }

    /**
     * Replaces the stored state if it is still the one read.
     *
     * @return the new stored state, or null if another writer changed it first
     */
    public Stored write(Stored current, TaskState next) {
        return write(current, next, false);
    }

    /**
     * As {@link #write}, for a claim of this task's own state: the state records the claim's version
     * ({@link #CLAIM_VERSION}), which every later write of it keeps until the next claim.
     */
    Stored writeClaim(Stored current, TaskState next) {
        return write(current, next, true);
    }

    private Stored write(Stored current, TaskState next, boolean claim) {
        long counter = counter(current.version()) + 1;
        Table table = withVersion(current, counter, Long.toString(++writes));
        if (claim) {
            table.getParameters().put(CLAIM_VERSION, Long.toString(counter));
        }
        StateParameters.encode(next, table.getParameters());
        table.getParameters().put(CONNECTOR, deployment.connector()); // a table made before it was recorded
        boolean written = fencing == Fencing.LOCKS ? lockedWrite.write(table, VERSION, current.version())
                : metastore.alterTableIf(table, VERSION, current.version()).isWritten();
        return written ? new Stored(current.task(), next, table.getParameters().get(VERSION), table) : null;
    }

    /** Locks for evolving the schemas of data tables where compare-and-set is not checked ({@link EvolutionLocks}). */
    public TableGuard tableGuard() {
        return new EvolutionLocks(metastore, writer, locks::staleAfterMs);
    }

    /** The name every hive-sink task locks beside {@code database.table} to evolve it. */
    public static String evolutionLockName(String database, String table) {
        return EvolutionLocks.lockName(database, table);
    }

    /** Makes every later write conditional this way; {@link Fencing#AUTO} is resolved by the caller first. */
    public void use(Fencing mode) {
        if (mode == Fencing.AUTO) {
            throw new IllegalArgumentException("resolve auto first");
        }
        this.fencing = mode;
    }

    /**
     * How long after its lock's heartbeat a write of a task state may still land: the stale bound where locks fence
     * the states (a write can outlive its broken lock that long), 0 where the metastore checks compare-and-set.
     */
    public long lateWriteBoundMs() {
        return fencing == Fencing.LOCKS ? locks.staleAfterMs() : 0;
    }

    /**
     * When a lock on the state's table was last broken, as the state records it or as this instance did and has not
     * recorded yet (epoch ms); -1 if never.
     */
    long lockBrokenAt(Stored state) {
        return Math.max(longParameter(state, LOCK_BROKEN_AT), locks.brokenAt(tableName(state.task())));
    }

    /** The version of the state's last claim ({@link #CLAIM_VERSION}); -1 if none is recorded. */
    static long claimVersion(Stored state) {
        return longParameter(state, CLAIM_VERSION);
    }

    private static long longParameter(Stored state, String key) {
        Map<String, String> params = state.table().getParameters();
        String value = params == null ? null : params.get(key);
        try {
            return value == null ? -1 : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return -1; // not ours to read: none recorded
        }
    }

    /** Settles the stale bound of the state locks: as configured, else from the metastore ({@link LockBound}). */
    void settleStaleBound(TaskRun run) {
        LockBound.Settled settled = LockBound.settle(metastore, configuredStaleLockMs, run);
        locks.staleAfterMs(settled.ms());
        staleBoundFinal = settled.final_();
    }

    /** Where locks fence, a bound that fell back to Hive's defaults (the metastore blinked) is read again. */
    void settleStaleBoundIfNotFinal(TaskRun run) {
        if (fencing == Fencing.LOCKS && !staleBoundFinal) {
            settleStaleBound(run);
        }
    }

    /** The metastore, as its messages name it. */
    public String metastoreDescription() {
        return metastore.describe();
    }

    /**
     * Whether the metastore's lock API works: an exclusive lock on the task's state table, taken (locks left behind
     * there are broken) and released.
     *
     * @return null if it works, else what failed: the lock API itself, or a live holder that kept the lock
     */
    public LockProblem lockProblem(int task) {
        try {
            lockedWrite.recordBreak(tableName(task)); // a lock it broke goes on the state before anyone claims
            return null;
        } catch (StateLocks.LockHeldException e) {
            return new LockProblem(true, e.foreign(), e.getMessage());
        } catch (RuntimeException e) {
            return new LockProblem(false, false, e.getMessage());
        }
    }

    /**
     * Why a lock could not be taken.
     *
     * @param held true: the lock API works, but a holder kept the lock; false: the lock API failed
     * @param foreign held, and only by locks that are not hive-sink's (an operator's, a tool's, a Hive query's)
     */
    public record LockProblem(boolean held, boolean foreign, String message) {
    }

    /** What the metastore does with a compare-and-set on alter_table. */
    public enum CompareAndSet {
        /** A stale expectation is refused and a current one accepted. */
        CHECKED,
        /**
         * As {@link #CHECKED}, but the stale expectation's refusal was not in the words of Hive's check: a check worded
         * otherwise, or that write failing on its own on a metastore that ignores the expectation. Only a second probe
         * tells which.
         */
        UNCONFIRMED,
        /** The expectation is accepted and not checked (Hive 3.x, 2.x before 2.3.10). */
        IGNORED,
        /**
         * Even a current expectation is refused: Hive 4 with metastore.try.direct.sql=false, or on a Derby schema made
         * by schematool, whose CLOB parameter values Derby cannot compare.
         */
        BROKEN
    }

    /**
     * What the metastore did with a probe, and its answer: to the current expectation when BROKEN, to the stale one
     * when UNCONFIRMED.
     */
    public record Probe(CompareAndSet outcome, String answer) {
    }

    /**
     * Probes the metastore with two writes of a scratch table of the task's own, {@code hive_sink_probe_<connector>_
     * <task>}: one expecting a version that is not stored (it must fail), then one expecting the stored version (it
     * must pass). Not the task's state: on a metastore that ignores the expectation, the stale write is made, and
     * made on the state it would put back what another task wrote there since it was read (a partition it claimed).
     *
     * @return empty if another writer changed the scratch table between the two writes (a second instance of the
     *         task probing at the same time), which says nothing about the metastore: probe again
     */
    public Optional<Probe> probeCompareAndSet(int task) {
        String name = probeTableName(task);
        Table scratch = metastore.getTable(database, name).orElse(null);
        if (scratch == null) {
            Table definition = definition(task);
            definition.setTableName(name);
            definition.getSd().setLocation(location + "/" + name);
            definition.getParameters().put(KIND, "fencing-probe");
            definition.getParameters().put("comment", "hive-sink connector " + deployment.connector() + ", task "
                    + task + ": written when the task starts, to learn whether the metastore checks "
                    + "compare-and-set. Holds no data.");
            metastore.createTable(definition);
            scratch = metastore.getTable(database, name).orElseThrow(() -> new MetastoreException("The table "
                    + database + "." + name + " was created but cannot be read back.", null));
        }
        Stored current = new Stored(task, null, scratch.getParameters().getOrDefault(VERSION, "0"), scratch);
        String stored = current.version();
        ConditionalAlter stale = metastore.alterTableIf(withVersion(current, counter(stored) + 1, "probe-stale"),
                VERSION, stored + ":not-stored");
        if (stale.isWritten()) {
            return Optional.of(new Probe(CompareAndSet.IGNORED, null));
        }
        try {
            if (!metastore.alterTableIf(withVersion(current, counter(stored) + 1, "probe"), VERSION, stored)
                    .isWritten()) {
                return Optional.empty();
            }
        } catch (MetastoreException e) {
            return Optional.of(new Probe(CompareAndSet.BROKEN, e.getMessage()));
        }
        return Optional.of(stale.outcome() == ConditionalAlter.Outcome.REFUSED_BY_CHECK
                ? new Probe(CompareAndSet.CHECKED, null) : new Probe(CompareAndSet.UNCONFIRMED, stale.answer()));
    }

    /** The scratch table the task's fencing probe writes. */
    public String probeTableName(int task) {
        return "hive_sink_probe_" + deployment.tableName() + "_" + task;
    }

    private Table withVersion(Stored current, long counter, String tag) {
        Table table = current.table().deepCopy();
        Map<String, String> params = new HashMap<>(table.getParameters());
        params.put(VERSION, counter + ":" + writer + ":" + tag);
        table.setParameters(params);
        return table;
    }

    /** The counter a version starts with: each write of a state adds one to the one it read. */
    static long counter(String version) {
        if (version == null || version.isEmpty()) {
            return 0;
        }
        int colon = version.indexOf(':');
        return Long.parseLong(colon < 0 ? version : version.substring(0, colon));
    }

    private Table definition(int task) {
        StorageDescriptor sd = new StorageDescriptor();
        sd.setCols(List.of(new FieldSchema("unused", "string", "state lives in the table parameters")));
        sd.setLocation(location + "/" + tableName(task));
        sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
        sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
        SerDeInfo serde = new SerDeInfo();
        serde.setSerializationLib("org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe");
        serde.setParameters(new HashMap<>());
        sd.setSerdeInfo(serde);
        sd.setParameters(new HashMap<>());
        sd.setBucketCols(new ArrayList<>());
        sd.setSortCols(new ArrayList<>());
        sd.setNumBuckets(-1);
        Map<String, String> params = new HashMap<>();
        params.put("EXTERNAL", "TRUE");
        params.put("comment", "hive-sink connector " + deployment.connector() + ", task " + task
                + ": committed Kafka offsets and fencing state. Written by the connector only; do not edit.");
        params.put(KIND, "task-state");
        params.put(TABLES_DATABASE, deployment.tablesDatabase());
        params.put(CONNECTOR, deployment.connector());
        params.put(VERSION, "0");
        Table table = new Table();
        table.setDbName(database);
        table.setTableName(tableName(task));
        table.setOwner("hive-sink");
        table.setTableType(TableType.EXTERNAL_TABLE.name());
        table.setSd(sd);
        table.setPartitionKeys(new ArrayList<>());
        table.setParameters(params);
        return table;
    }
}
