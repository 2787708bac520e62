package io.hivesink.task;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.FlushPolicy;
import io.hivesink.batch.LateCheck;
import io.hivesink.batch.TableLayouts;
import io.hivesink.commit.ExactlyOnceCommitter;
import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.Ledger;
import io.hivesink.commit.StateDatabase;
import io.hivesink.commit.StateHolds;
import io.hivesink.commit.StateTables;
import io.hivesink.commit.TaskRun;
import io.hivesink.compact.CompactedBatches;
import io.hivesink.compact.CompactionLog;
import io.hivesink.compact.CompactionMoves;
import io.hivesink.compact.CompactionRunner;
import io.hivesink.compact.Compactor;
import io.hivesink.compact.FileMergers;
import io.hivesink.compact.Retirement;
import io.hivesink.compact.StuckHolds;
import io.hivesink.config.BatchConfig;
import io.hivesink.config.CompactionConfig;
import io.hivesink.config.HiveSinkConfig;
import io.hivesink.config.InputConfig;
import io.hivesink.config.PartitionConfig;
import io.hivesink.config.StorageConfig;
import io.hivesink.config.TableConfig;
import io.hivesink.config.TableOverrides;
import io.hivesink.config.TablesConfig;
import io.hivesink.done.DoneBounds;
import io.hivesink.done.DoneListener;
import io.hivesink.done.DoneTable;
import io.hivesink.done.PartitionMarker;
import io.hivesink.done.PartitionMoves;
import io.hivesink.done.TableWatermarks;
import io.hivesink.done.TimeGrain;
import io.hivesink.fs.StagingArea;
import io.hivesink.input.ConfluentAvroInput;
import io.hivesink.input.ConnectInput;
import io.hivesink.input.RecordInput;
import io.hivesink.input.SchemaRegistryClient;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.Metastore;
import io.hivesink.route.Partitioner;
import io.hivesink.route.Partitioners;
import io.hivesink.route.TableRouter;

/**
 * The parts of a task that land batches, built from the connector's configuration in part groups: storage (the
 * FileSystem, the warehouse, the task's staging), metastore (tables, task state, ledger), writers (the file writer of
 * each table, on the task's pool) and batch (the open batch, its flush policy), with the committer over them.
 * {@link TaskAssembly} builds them for a task and adds Connect's side; rigs that run the commit protocol without
 * Connect (protocol tests, the commit benchmark) build the same parts from a test config ({@link #build}), so that
 * paths, table names and instance ids follow one convention.
 */
public record TaskParts(TaskRun run, Storage storage, MetastoreParts metastore, TableWriters writers,
        BatchBuffer buffer, FlushPolicy flushPolicy, ExactlyOnceCommitter committer, TableWatermarks watermarks,
        DoneMarking doneMarking, CompactionRunner compactions) {

    private static final Logger log = LoggerFactory.getLogger(TaskParts.class);

    /** Where the task's files go: the FileSystem, the warehouse and the task's staging directory. */
    public record Storage(FileSystem fs, String warehouseUri, Path connectorStaging, StagingArea staging) {

        static Storage on(FileSystem fs, StorageConfig config, TaskRun run) {
            String warehouseUri = fs.makeQualified(new Path(config.warehouseDir())).toString();
            Path connectorStaging = new Path(fs.makeQualified(new Path(config.stagingDir())),
                    run.connectorTable());
            return new Storage(fs, warehouseUri, connectorStaging,
                    new StagingArea(fs, new Path(connectorStaging, "task-" + run.task())));
        }
    }

    /**
     * What the task keeps in the metastore: the tables it lands in, its task state with the holds compactions put
     * in it, the ledger and the compaction log.
     */
    public record MetastoreParts(Metastore client, HiveTables tables, StateTables states, StateHolds holds,
            Ledger ledger, CompactionLog compactionLog) {

        static MetastoreParts of(Metastore client, HiveSinkConfig config, TableOverrides settings, Storage storage,
                TaskRun run) {
            TablesConfig tablesConfig = config.tables();
            String database = tablesConfig.database();
            // the ledger's, the done table's and the compaction log's rows are Avro files whatever format the tables
            // have, and their schemas follow the connector's whatever schema.evolution says
            HiveTables tables = new HiveTables(client, database, storage.warehouseUri(),
                    table -> table.equals(tablesConfig.ledgerTable()) || table.equals(config.done().table())
                            || table.equals(CompactionLog.NAME)
                            ? tableConfig(storage.fs(), settings, table).asConnectorsOwn()
                            : tableConfig(storage.fs(), settings, table));
            StateTables.Deployment deployment = new StateTables.Deployment(run.connector(),
                    run.connectorTable(), database);
            String stateLocation = new Path(storage.connectorStaging(), "state").toString();
            StateTables states = StateDatabase.locate(client, tablesConfig.stateDatabase(), database,
                    storage.warehouseUri(), in -> new StateTables(client, in, deployment, stateLocation,
                            run.instance(), config.metastore().lockStaleMs()));
            return new MetastoreParts(client, tables, states, new StateHolds(states),
                    new Ledger(tables, client, tablesConfig.ledgerTable()),
                    new CompactionLog(tables, client, storage.fs(), CompactionLog.NAME));
        }
    }

    /**
     * One run of a task: the instance id is unique per run, so that batch ids (and so file names) never collide with
     * an earlier run's, and a zombie run of this task is told apart from the live one.
     */
    static TaskRun run(Map<String, String> props, LongSupplier clock) {
        String connector = props.getOrDefault("name", "hive-sink");
        int taskId = Integer.parseInt(props.getOrDefault(HiveSinkConfig.TASK_ID, "0"));
        String connectorTable = TableRouter.hiveSafeName(connector);
        String instance = connectorTable + "-t" + taskId + "-"
                + Long.toString(clock.getAsLong(), 36) + "-"
                + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
        return new TaskRun(connector, connectorTable, taskId, instance);
    }

    /**
     * The parts of a task from its properties, on a FileSystem and metastore client the caller opened, and a pool it
     * owns; the staging directory is prepared. The committer is not started. Without Connect there is no errant-record
     * reporter: records that cannot land are set aside ({@code errors.tolerance=all}) or fail the batch.
     */
    public static TaskParts build(Map<String, String> props, FileSystem fs, Metastore metastore,
            ExecutorService pool, FaultInjector faults, LongSupplier clock) {
        HiveSinkConfig config = HiveSinkConfig.parse(props);
        TaskRun run = run(props, clock);
        Storage storage = Storage.on(fs, config.storage(), run);
        storage.staging().prepare("the test's user");
        return assemble(config, props, run, storage, metastore, pool, faults, clock,
                RejectedRecords.toleratesAll(props));
    }

    /** The parts over storage and a metastore client that are ready. */
    static TaskParts assemble(HiveSinkConfig config, Map<String, String> props, TaskRun run, Storage storage,
            Metastore client, ExecutorService pool, FaultInjector faults, LongSupplier clock,
            boolean rejectBadRecords) {
        TableOverrides settings = TableOverrides.of(props);
        MetastoreParts metastore = MetastoreParts.of(client, config, settings, storage, run);
        int threads = config.avro().writerThreads();
        TableWriters writers = new TableWriters(settings, pool, threads, config.avro(), config.parquet(),
                config.orc());
        ExactlyOnceCommitter committer = new ExactlyOnceCommitter(metastore.tables(), storage.staging(),
                writers::forTable, metastore.ledger(), metastore.states(), faults, run, clock);
        // a bad partitioner class fails the start, not a batch
        Partitioners.create(config.partitioning().partitioners(), props);
        String database = config.tables().database();
        TableRouter router = TableRouter.fromConfig(config.tables());
        TableLayouts layouts = new TableLayouts(database, table -> partitioners(router, props, settings, table),
                (table, schema, partitionSpec) -> metastore.tables().ensureTable(table, schema, partitionSpec));
        TableWatermarks watermarks = new TableWatermarks(TableFeeds.of(router, props),
                table -> settings.configFor(table).done().latenessMs(), table -> timeGrain(settings, table),
                topic -> timeTableOf(router, settings, topic));
        DoneBounds bounds = new DoneBounds();
        DoneTable doneTable = config.done().markers() ? new DoneTable(metastore.tables(), metastore.client(),
                storage.fs(), config.done().table(), clock) : null;
        LateCheck late = doneTable == null ? LateCheck.NONE : new LateRecords(bounds, table -> timeGrain(settings,
                table), table -> settings.configFor(table).done().latePolicy(), doneTable::markedUntil, clock);
        metastore.ledger().countLateBy(late);
        BatchBuffer buffer = new BatchBuffer(recordInput(config), router, layouts,
                run.instance(), pool, 2 * threads + 2, rejectBadRecords,
                config.avro().compressEarly() ? writers::earlyWriter : null, late);
        PartitionMarker marker = doneTable == null ? null : marker(run, storage, metastore, clock, faults, doneTable);
        CompactionRunner compactions = marker == null || !compacting(props, settings) ? null
                : compactions(config, props, run, storage, metastore, settings, marker, clock, faults);
        DoneMarking marking = doneTable == null ? DoneMarking.NONE
                : doneMarking(config, metastore, settings, watermarks, clock, bounds, doneTable, marker,
                        compactions == null ? DoneListener.NONE : compactions);
        if (doneTable != null) {
            committer.tell(marking::landed);
        }
        return new TaskParts(run, storage, metastore, writers, buffer, flushPolicy(config, settings), committer,
                watermarks, marking, compactions);
    }

    private static RecordInput recordInput(HiveSinkConfig config) {
        InputConfig input = config.input();
        RecordInput values = valueInput(config);
        if (input.nullValues() == InputConfig.NullValues.IGNORE) {
            log.info("Records with a null value (tombstones) are skipped ({}=ignore)",
                    InputConfig.BEHAVIOR_ON_NULL_VALUES);
            return values.ignoringTombstones();
        }
        return values;
    }

    private static RecordInput valueInput(HiveSinkConfig config) {
        InputConfig input = config.input();
        if (!input.confluentAvro()) {
            return ConnectInput.INSTANCE;
        }
        SchemaRegistryClient registry = new SchemaRegistryClient(new SchemaRegistryClient.Settings(
                input.registryUrls(), input.registryBasicAuth().value(), input.registryTruststoreLocation(),
                input.registryTruststorePassword().value(), input.registryRequestTimeout(),
                input.registryRetryAttempts(), input.registryRetryBackoff(), input.registryRetryBackoffMax()));
        log.info("Values are Avro framed by Confluent's serializer, passed through as they are; schemas from {}",
                input.registryUrls());
        return new ConfluentAvroInput(registry::schemaById, config.tables().routeField());
    }

    private static FlushPolicy flushPolicy(HiveSinkConfig config, TableOverrides tableSettings) {
        Map<String, Long> tableLimits = new HashMap<>();
        for (String table : tableSettings.tablesSetting(BatchConfig.BATCH_MAX_RECORDS)) {
            tableLimits.put(table, (long) tableSettings.configFor(table).batchMaxRecords());
        }
        BatchConfig batch = config.batch();
        return new FlushPolicy(batch.maxRecords(), batch.maxBytes(), batch.maxIntervalMs(), batch.maxIdleMs(),
                tableLimits);
    }

    /**
     * The table's partitioners. Routed by a field, records of many tables share each Kafka partition, whose event
     * time is the greatest of them all: a table that takes its event time from elsewhere than the connector's
     * settings say ({@code table.<name>.partition.time.field}, its unit or format) would mix two clocks, and gives
     * none (so it has no watermark).
     */
    private static List<Partitioner> partitioners(TableRouter router, Map<String, String> props,
            TableOverrides settings, String table) {
        List<Partitioner> partitioners = Partitioners.create(settings.configFor(table).partitioners(),
                settings.settingsFor(table));
        if (router.routesByTopic() || !settings.configFor(table).partitioners().contains(Partitioners.TIME)) {
            return partitioners;
        }
        PartitionConfig.Time connector = PartitionConfig.timeOf(props);
        PartitionConfig.Time own = PartitionConfig.timeOf(settings.settingsFor(table));
        if (own.field().equals(connector.field()) && own.fieldUnit() == connector.fieldUnit()
                && own.fieldFormat().equals(connector.fieldFormat())) {
            return partitioners;
        }
        log.warn("Table {} takes its event time from {} where the connector's settings say {}: routed by a field, its "
                + "Kafka partitions' event times would mix the two, so the table has no watermark", table,
                describe(own), describe(connector));
        return Partitioners.withoutEventTimes(partitioners);
    }

    private static String describe(PartitionConfig.Time time) {
        return time.field().isEmpty() ? "the record timestamp" : "field '" + time.field() + "' ("
                + (time.fieldFormat().isEmpty() ? time.fieldUnit().name().toLowerCase(java.util.Locale.ROOT)
                        : time.fieldFormat()) + ")";
    }

    /** The table partitioned by time the topic feeds, routed by topic; null if none, or routed by a field. */
    private static String timeTableOf(TableRouter router, TableOverrides settings, String topic) {
        if (!router.routesByTopic()) {
            return null;
        }
        try {
            String table = router.tableFor(topic);
            return settings.configFor(table).partitioners().contains(Partitioners.TIME) ? table : null;
        } catch (org.apache.kafka.connect.errors.DataException e) {
            return null; // no table takes the topic
        }
    }

    /** Marks the time partitions of the task's tables done, in {@code doneTable}. */
    private static PartitionMarker marker(TaskRun run, Storage storage, MetastoreParts metastore, LongSupplier clock,
            FaultInjector faults, DoneTable doneTable) {
        CompactionLog compactionLog = metastore.compactionLog();
        PartitionMoves moves = new CompactionMoves(metastore.holds(), run.task(), compactionLog);
        return new PartitionMarker(metastore.client(), storage.fs(), doneTable, run.connector(),
                run.instance(), clock, faults, new CompactedBatches((table, partition, batches) -> metastore.ledger()
                        .counts().in(storage.fs(), table, partition, batches), compactionLog), moves);
    }

    /** How many tasks the connector runs, as it told each; 1 where it did not (a task built by a test). */
    private static int taskCount(Map<String, String> props) {
        return Integer.parseInt(props.getOrDefault(HiveSinkConfig.TASK_COUNT, "1"));
    }

    /** Whether a table may be compacted: {@code compaction.enabled} set, for the connector or a table. */
    private static boolean compacting(Map<String, String> props, TableOverrides settings) {
        return Boolean.parseBoolean(props.getOrDefault(CompactionConfig.COMPACTION_ENABLED, "false").trim())
                || !settings.tablesSetting(CompactionConfig.COMPACTION_ENABLED).isEmpty();
    }

    /** The task's compactions of the done partitions of its compacted tables ({@code docs/compaction.md}). */
    private static CompactionRunner compactions(HiveSinkConfig config, Map<String, String> props, TaskRun run,
            Storage storage, MetastoreParts metastore, TableOverrides settings, PartitionMarker marker,
            LongSupplier clock, FaultInjector faults) {
        String database = config.tables().database();
        CompactionConfig compaction = config.compaction();
        StateHolds holds = metastore.holds();
        CompactionLog compactionLog = metastore.compactionLog();
        Compactor compactor = new Compactor(metastore.client(), database, storage.fs(), holds, compactionLog, clock,
                Thread::sleep, compaction.holdMaxMs(), faults);
        StuckHolds finder = new StuckHolds(holds, run.task(), compactionLog, compactor, metastore.tables()::existing,
                storage.fs(), compaction.holdMaxMs(), clock, run.instance());
        Retirement retirement = new Retirement(metastore.client(), database, storage.fs(), compactionLog,
                compaction.retentionMs(), clock);
        return new CompactionRunner(new CompactionRunner.Parts(run.connector(), run.task(), taskCount(props),
                run.instance(), database, storage.fs(), holds, compactionLog, metastore.tables()::existing,
                settings::configFor, new FileMergers(config.parquet(), config.orc())::forTable,
                marker::hivePartitions), compactor, finder, retirement, compaction, clock);
    }

    private static DoneMarking doneMarking(HiveSinkConfig config, MetastoreParts metastore, TableOverrides settings,
            TableWatermarks watermarks, LongSupplier clock, DoneBounds bounds, DoneTable doneTable,
            PartitionMarker marker, DoneListener listener) {
        String database = config.tables().database();
        Map<String, java.util.Optional<TimeGrain>> grains = new java.util.concurrent.ConcurrentHashMap<>();
        return new DoneMarking(watermarks, marker, doneTable, table -> {
            // of the table's settings, known before its watermark; asked at every commit: worked out once
            TimeGrain grain = grains.computeIfAbsent(table, t -> java.util.Optional.ofNullable(timeGrain(settings, t)))
                    .orElse(null);
            return grain == null ? null : new PartitionMarker.TimeTable(database, table,
                    metastore.tables().existing(table).partitionSpec().names(), grain,
                    settings.configFor(table).done().successFile(), settings.configFor(table).compaction().enabled());
        }, table -> settings.configFor(table).done().delayMs(), config.done().backfillMs(), clock, bounds, listener);
    }

    /** The grain of the table's time partitions, or null if it is not partitioned by time or its pattern has none. */
    private static TimeGrain timeGrain(TableOverrides settings, String table) {
        if (!settings.configFor(table).partitioners().contains("time")) {
            return null;
        }
        PartitionConfig.Time time = PartitionConfig.timeOf(settings.settingsFor(table));
        try {
            return TimeGrain.of(time.pattern(), time.zone());
        } catch (IllegalArgumentException e) {
            log.info("Table {} has a watermark but no time partitions that complete: {}", table, e.getMessage());
            return null;
        }
    }

    /** The table's configuration, its directory (if it sets one) qualified on the FileSystem. */
    private static TableConfig tableConfig(FileSystem fs, TableOverrides overrides, String table) {
        TableConfig config = overrides.configFor(table);
        return config.location() == null ? config
                : config.locatedAt(fs.makeQualified(new Path(config.location())).toString());
    }
}
