package io.hivesink.it.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;

import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.connect.ConnectWorkerProcess;

/** What every outage test checks once the outage is over: each record once, and every task running by itself. */
public final class OutageChecks {

    private final FailoverStack stack;
    private final String database;
    private final Query query;
    /** The file format of the connector's tables. */
    private final String format;
    private String lastFailure;
    /** Connector settings added to or over {@link #connector}'s own. */
    private final Map<String, String> settings = new HashMap<>();
    /** Counts left for one run of a dear engine at the end ({@link #countedAtTheEnd}), or null: counted at once. */
    private final Map<String, List<String>> deferredCounts;
    private final Engine engine;

    /** Counts through the stack's HiveServer2. */
    public OutageChecks(FailoverStack stack, String database) {
        this(stack, database, sql -> stack.hive().query(sql));
    }

    /** Counts through {@code query}, a query engine that reads the stack's metastore. */
    public OutageChecks(FailoverStack stack, String database, Query query) {
        this(stack, database, query, "avro");
    }

    /** The same, the connector writing tables of {@code format}. */
    public OutageChecks(FailoverStack stack, String database, Query query, String format) {
        this(stack, database, query, format, null);
    }

    private OutageChecks(FailoverStack stack, String database, Query query, String format, Engine engine) {
        this.stack = stack;
        this.database = database;
        this.query = query;
        this.format = format;
        this.engine = engine;
        this.deferredCounts = engine == null ? null : new LinkedHashMap<>();
    }

    /**
     * Counts through {@code engine}, but all in one run once the tests are over ({@link #assertDeferredCounts}): a
     * run of Spark costs a minute, and waits for the other classes' runs.
     */
    public static OutageChecks countedAtTheEnd(FailoverStack stack, String database, String format, Engine engine) {
        return new OutageChecks(stack, database, null, format, engine);
    }

    /** A query engine run once on many statements: per statement, its rows. */
    @FunctionalInterface
    public interface Engine {
        List<List<List<String>>> rows(String... statements) throws Exception;
    }

    /** Runs the counts {@link #assertEachRecordOnce} left for the end, in one run of the engine, and checks them. */
    public void assertDeferredCounts() throws Exception {
        if (deferredCounts == null || deferredCounts.isEmpty()) {
            return;
        }
        List<String> statements = new ArrayList<>(deferredCounts.keySet());
        List<List<List<String>>> answers = engine.rows(statements.toArray(String[]::new));
        for (int i = 0; i < statements.size(); i++) {
            assertEquals(List.of(deferredCounts.get(statements.get(i))), answers.get(i),
                    "every record once, through the engine: " + statements.get(i));
        }
        deferredCounts.clear();
    }

    /**
     * Checks that count nothing through a query engine: the caller reads every row itself ({@link #everyOrderQuery},
     * {@link #checkEveryOrderAsProduced}), which covers the count, when a run of its engine is dear (Spark).
     */
    public static OutageChecks readByCaller(FailoverStack stack, String database) {
        return new OutageChecks(stack, database, null);
    }

    /** A query engine: the rows of one SQL statement. */
    @FunctionalInterface
    public interface Query {
        List<List<String>> rows(String sql) throws Exception;
    }

    /** A connector of {@code topic}: two tasks, batches of 500 records. */
    public Map<String, String> connector(String name, String topic) {
        Map<String, String> config = stack.connectorConfig(name, database);
        config.put("topics", topic);
        config.put("tasks.max", "2");
        config.put("batch.max.records", "500");
        config.put("format", format);
        config.putAll(settings);
        return config;
    }

    /** Adds a connector setting to those of {@link #connector}, or replaces one. */
    public OutageChecks withSetting(String key, String value) {
        settings.put(key, value);
        return this;
    }

    /** Records of the table in the ledger; none while the metastore is down. */
    public long landed(String table) {
        return ledgerRows(table).stream().mapToLong(row -> (Long) row.get("record_count")).sum();
    }

    private List<Map<String, Object>> ledgerRows(String table) {
        try {
            String metastoreUri = stack.connectorConfig("x", database).get("hive.metastore.uris");
            return LedgerRows.of(metastoreUri, stack::tableFileSystem, database, table);
        } catch (RuntimeException e) {
            if (!String.valueOf(e).equals(lastFailure)) { // say why, once, in case it is not an outage
                lastFailure = String.valueOf(e);
                System.out.println("OutageChecks: the ledger cannot be read: " + lastFailure);
            }
            return List.of(); // the metastore or the store is down
        }
    }

    /**
     * Waits until {@code produced} records of the topic landed in the table, then checks that the ledger covers each
     * offset once and that Hive counts each record (its {@code id}) once (unless {@link #readByCaller}).
     */
    public void assertEachRecordOnce(String table, String topic, long produced) throws Exception {
        EmbeddedStack.await(produced + " records landed", Duration.ofMinutes(4), () -> landed(table) >= produced);
        LedgerRows.assertEachOffsetOnce(ledgerRows(table), topic, produced);
        String count = "select count(*), count(distinct id) from " + database + "." + table;
        if (deferredCounts != null) {
            deferredCounts.put(count, List.of(Long.toString(produced), Long.toString(produced)));
            return;
        }
        if (query == null) {
            return;
        }
        List<String> counts = query.rows(count).get(0);
        assertEquals(List.of(Long.toString(produced), Long.toString(produced)), counts,
                "every record once, through Hive");
    }

    /**
     * Reads every row of the table, every column, and compares each with the order produced under its id: the
     * records landed value by value as produced, ids 0 to {@code produced - 1}.
     */
    public void assertEveryOrderAsProduced(String table, long produced) throws Exception {
        checkEveryOrderAsProduced(table, produced, query.rows(everyOrderQuery(table)));
    }

    /** The statement {@link #assertEveryOrderAsProduced} reads the table with. */
    public String everyOrderQuery(String table) {
        return "select " + OrderRows.EVERY_COLUMN + " from " + database + "." + table;
    }

    /** {@link #assertEveryOrderAsProduced} on the rows of {@link #everyOrderQuery}, read by the caller. */
    public void checkEveryOrderAsProduced(String table, long produced, List<List<String>> read) {
        List<List<String>> rows = new ArrayList<>(read);
        rows.sort(Comparator.comparingLong(row -> Long.parseLong(row.get(0))));
        assertEquals(produced, rows.size(), "rows of " + table);
        for (int id = 0; id < rows.size(); id++) {
            assertEquals(OrderRows.expected(id), rows.get(id), "the order of id " + id + " in " + table);
        }
    }

    /** What an outage test does to the running connector, with its one worker at hand. */
    @FunctionalInterface
    public interface Outage {
        void during(ConnectWorkerProcess worker) throws Exception;
    }

    /**
     * One worker runs the connector (two tasks, the topic's two partitions) while records flow; once a first batch
     * landed, the outage; records flow 10 s more; then each record must land once and every task run by itself.
     *
     * @return the records produced, and what the worker logged
     */
    public Ridden ridesOut(String topic, String connector, Outage outage) throws Exception {
        String table = topic.replace('.', '_');
        stack.kafka().createTopic(topic, 2);
        try (ConnectWorkerProcess worker = stack.startWorker(connector, Map.of(), Map.of());
                KafkaProducer<byte[], byte[]> producer = stack.kafka().createProducer(SampleData.producerSettings())) {
            RecordFlow flow = new RecordFlow(producer, topic);
            try {
                worker.rest().putConnector(connector, connector(connector, topic));
                EmbeddedStack.await("a first batch", Duration.ofMinutes(2), () -> landed(table) > 0);
                outage.during(worker);
                Thread.sleep(10_000);
            } finally {
                flow.stop();
            }
            long produced = flow.produced();
            assertEachRecordOnce(table, topic, produced);
            assertTasksRunning(worker, connector, 2);
            return new Ridden(produced, worker.logLines());
        }
    }

    public record Ridden(long produced, List<String> workerLog) {
    }

    /** Every task of the connector is RUNNING: nobody restarted anything by hand. */
    public static void assertTasksRunning(ConnectWorkerProcess worker, String connector, int tasks) throws Exception {
        var status = worker.rest().status(connector);
        assertEquals(tasks, status.path("tasks").size(), status.toString());
        for (var task : status.path("tasks")) {
            assertEquals("RUNNING", task.path("state").asText(), task.toString());
        }
    }
}
