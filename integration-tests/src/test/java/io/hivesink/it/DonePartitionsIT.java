package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.FaultPoint;
import io.hivesink.it.support.PartitionDescription;
import io.hivesink.it.support.StackExtension;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.connect.ConnectWorkerProcess;

/**
 * Done markers through a Connect worker: two tasks land three tables partitioned {@code dt=.../hr=...} on an
 * event-time field, from six partitions whose records come out of order within ten minutes, over six hours; one
 * partition falls silent after two hours. Every hour of every table must be marked done once, in order, after the
 * last batch holding its records (the ledger's commit times say when those were committed), with a {@code _SUCCESS}
 * file in its directory, and the silent partition must not hold the hours back. HiveServer2 and Spark read the done
 * table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
class DonePartitionsIT {

    private static final String DATABASE = "done_it";
    private static final Schema EVENT = SchemaBuilder.struct().name("io.hivesink.it.Event")
            .field("id", Schema.INT64_SCHEMA)
            .field("at", Schema.INT64_SCHEMA)
            .build();
    private static final long MINUTE = 60_000L;
    private static final long HOUR = 3_600_000L;
    private static final int HOURS = 6;
    static final Duration OUTAGE = Duration.ofSeconds(60);
    /** The ids of the late records, past every other's. */
    private static final long LATE_ID = 900_000;
    private static final DateTimeFormatter NAME = DateTimeFormatter.ofPattern("'dt='yyyy-MM-dd'/hr='HH")
            .withZone(ZoneOffset.UTC);

    private FailoverStack stack;
    private KafkaProducer<byte[], byte[]> producer;
    private final JsonConverter json = SampleData.jsonConverter();

    @BeforeAll
    void startStack(FailoverStack failover) {
        stack = failover;
        producer = stack.kafka().createProducer(SampleData.producerSettings());
    }

    @AfterAll
    void closeProducer() {
        if (producer != null) {
            producer.close();
        }
    }

    @Test
    void everyHourOfEveryTableIsMarkedDoneOnceInOrderAfterItsLastRecordDespiteASilentPartition() throws Exception {
        String connector = "done-sink";
        List<String> topics = List.of("done.orders", "done.payments", "done.returns");
        long first = firstHour();
        Map<String, Map<String, Long>> expected = produce(topics, first, "done.returns");
        Map<String, String> config = connectorConfig(connector, topics);
        config.put("table.done_payments.format", "parquet");
        config.put("table.done_returns.format", "orc");
        config.put("table.done_orders.compaction.enabled", "true"); // its partitions live beside its directory
        config.put("table.done_payments.partition.late.policy", "dlq");
        config.put("table.done_returns.partition.late.policy", "fail");
        config.put("errors.tolerance", "all");
        config.put("errors.deadletterqueue.topic.name", "done.dlq");
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        stack.kafka().createTopic("done.dlq", 1);
        List<List<String>> doneRows;
        try (ConnectWorkerProcess worker = stack.startWorker(connector, Map.of(), Map.of())) {
            worker.rest().putConnector(connector, config);
            stack.awaitCommittedToEnd(connector, Duration.ofMinutes(3), topics);
            doneRows = awaitDone(topics, first);
            checkDone(topics, first, doneRows, expected);
            lateRecordsByPolicy(worker, connector, first, expected.get("done_orders"));
        }
        List<List<String>> marked = doneRows(topics).stream().map(row -> row.subList(0, 2)).toList();
        repairKeepsEveryPartition("hive_sink_done", () -> doneRows(topics).stream().map(row -> row.subList(0, 2))
                .toList(), marked);
        // and those of a compacted table, which live outside its directory, are left alone as well
        java.util.concurrent.Callable<List<List<String>>> orders = () -> stack.hive().query("select dt, hr, "
                + "count(*) from " + DATABASE + ".done_orders group by dt, hr order by dt, hr");
        repairKeepsEveryPartition("done_orders", orders, orders.call());
        List<List<List<String>>> spark = stack.spark().query("select table_name, time_partition from " + DATABASE
                + ".hive_sink_done where table_name like 'done_%' order by table_name, time_partition",
                "select count(*) from " + DATABASE + ".done_orders");
        assertEquals(doneRows.stream().map(row -> row.subList(0, 2)).toList(), spark.get(0),
                "Spark reads the done table as Hive does");
        assertEquals(List.of(List.of(Long.toString(expected.get("done_orders").values().stream()
                .mapToLong(Long::longValue).sum() + 1))), spark.get(1),
                "and skips the _SUCCESS files (the late record landed)");
        System.out.printf("DonePartitionsIT: %d tables, %d time partitions marked done: %s%n", topics.size(),
                doneRows.size(), doneRows);
    }

    @Test
    void aWorkerKilledAtEachStepOfMarkingLosesAndRepeatsNoMark() throws Exception {
        String connector = "done-crash";
        List<String> topics = List.of("crash.orders", "crash.payments");
        long first = firstHour();
        Map<String, Map<String, Long>> expected = produce(topics, first, null);
        Map<String, String> config = connectorConfig(connector, topics);
        config.put("table.crash_payments.format", "parquet");
        // where locks fence, those a killed worker (or the metastore's kill) leaves are broken after this long
        config.put("hive.metastore.lock.stale.ms", "10000");
        List<String> crashes = new ArrayList<>();
        for (FaultPoint point : FaultPoint.markingSteps()) {
            try (ConnectWorkerProcess worker = stack.startWorker(connector, Map.of(),
                    Map.of(FaultInjector.ENVIRONMENT, point.name()))) {
                worker.rest().putConnector(connector, config);
                assertEquals(FaultInjector.HALT_STATUS, worker.awaitExit(Duration.ofMinutes(2)),
                        "the worker halts at " + point);
                crashes.add(point + ": " + worker.logLines().stream().filter(l -> l.contains("DoneMarking"))
                        .count() + " marks logged");
            }
        }
        List<List<String>> doneRows;
        int atTheKill;
        try (ConnectWorkerProcess survivor = stack.startWorker(connector, Map.of(), Map.of())) {
            int beforeSurvivor = doneRows(topics).size();
            survivor.rest().putConnector(connector, config);
            atTheKill = metastoreDownForAMinuteOnceMarkingGoesOn(topics, beforeSurvivor);
            stack.awaitCommittedToEnd(connector, Duration.ofMinutes(3), topics);
            doneRows = awaitDone(topics, first);
        }
        System.out.printf("%s: crashes %s; %d time partitions marked when the metastore was killed, %d in the end%n",
                getClass().getSimpleName(), crashes, atTheKill, doneRows.size());
        checkDone(topics, first, doneRows, expected);
    }

    /**
     * Once the survivor has marked a time partition more than {@code before}, the metastore's JVM is killed, in the
     * middle of the survivor's marking most likely, and restarted a minute later.
     *
     * @return how many time partitions were marked when it was killed
     */
    private int metastoreDownForAMinuteOnceMarkingGoesOn(List<String> topics, int before) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        int marked;
        do {
            Thread.sleep(500);
            marked = doneRows(topics).size();
        } while (marked <= before && System.nanoTime() < deadline);
        assertTrue(marked > before, "the survivor marks time partitions: " + marked);
        stack.metastore().kill();
        try {
            Thread.sleep(OUTAGE.toMillis());
        } finally {
            stack.metastore().restart();
        }
        return marked;
    }

    /**
     * A record of the first hour, marked done by now, to each table, whose policies differ: done_orders lands it and
     * counts it late in the ledger (land), done_payments sends it to the dead-letter queue (dlq), and done_returns
     * fails the task that takes it (fail), last.
     */
    private void lateRecordsByPolicy(ConnectWorkerProcess worker, String connector, long first,
            Map<String, Long> orders) throws Exception {
        String hour = NAME.format(Instant.ofEpochMilli(first));
        long at = first + 10 * MINUTE;
        SampleData.sendAll(producer, List.of(record("done.orders", 0, LATE_ID, at),
                record("done.payments", 0, LATE_ID + 1, at)));
        stack.awaitCommittedToEnd(connector, Duration.ofMinutes(2), List.of("done.orders", "done.payments"));
        assertEquals(List.of(List.of(hour, "1")), stack.hive().query("select partition_name, sum(late_records) "
                + "from " + DATABASE + ".hive_sink_ledger where table_name = 'done_orders' and late_records > 0 "
                + "group by partition_name"), "land: the late record landed, counted in the ledger");
        assertEquals(List.of(List.of(hour)), stack.hive().query("select concat('dt=', dt, '/hr=', hr) from "
                + DATABASE + ".done_orders where id = " + LATE_ID), "land lands it, in its hour");
        long landed = orders.get(hour) + 1;
        assertEquals(List.of(List.of(Long.toString(landed), "1")), stack.hive().query("select record_count, "
                + "late_records from " + DATABASE + ".hive_sink_done where table_name = 'done_orders' and "
                + "time_partition = '" + hour + "'"), "land: the replaced done row counts it");
        assertEquals(Long.toString(landed), partitionParameter("done_orders", hour, "hive-sink.done.records"));
        assertEquals("1", partitionParameter("done_orders", hour, "hive-sink.late.records"),
                "and so does its Hive partition");
        assertEquals(List.of(List.of("0")), stack.hive().query("select count(*) from " + DATABASE
                + ".done_payments where id = " + (LATE_ID + 1)), "dlq does not");
        ConsumerRecords<byte[], byte[]> dead = stack.kafka().consume(1, 60_000, "done.dlq");
        ConsumerRecord<byte[], byte[]> deadRecord = dead.iterator().next();
        assertEquals(Long.toString(LATE_ID + 1), new String(deadRecord.key(), StandardCharsets.UTF_8));
        String why = new String(deadRecord.headers().lastHeader("__connect.errors.exception.message").value(),
                StandardCharsets.UTF_8);
        assertTrue(why.contains("is late: time partition " + hour + " of table done_payments is marked done"), why);

        SampleData.sendAll(producer, List.of(record("done.returns", 0, LATE_ID + 2, at)));
        String[] trace = new String[1];
        EmbeddedStack.await("the task taking the late record of done_returns to fail", Duration.ofMinutes(2),
                () -> {
                    try {
                        for (var task : worker.rest().status(connector).path("tasks")) {
                            if (task.path("state").asText().equals("FAILED")) {
                                trace[0] = task.path("trace").asText();
                                return true;
                            }
                        }
                        return false;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
        assertTrue(trace[0].contains("offset") && trace[0].contains("is late: time partition " + hour
                + " of table done_returns") && trace[0].contains("partition.late.policy=fail"), trace[0]);
        System.out.printf("DonePartitionsIT: a record of %s landed late (land), went to done.dlq (dlq), failed its "
                + "task (fail)%n", hour);
    }

    private static long firstHour() {
        return Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(9)).toEpochMilli();
    }

    private Map<String, String> connectorConfig(String connector, List<String> topics) {
        Map<String, String> config = stack.connectorConfig(connector, DATABASE);
        config.put("topics", String.join(",", topics));
        config.put("tasks.max", "2");
        config.put("partitioner", "time");
        config.put("partition.time.field", "at");
        config.put("partition.time.pattern", "dt=yyyy-MM-dd/hr=HH");
        config.put("partition.done.lateness.ms", Long.toString(10 * MINUTE));
        config.put("partition.done.idle.ms", "5000");
        config.put("batch.max.records", "150");
        return config;
    }

    /**
     * Produces six hours of records from {@code first} to two partitions of each topic, every two minutes, out of
     * order by up to eight minutes (within the ten allowed); the second partition of {@code silent} falls silent
     * after two hours. The others end with a record a quarter past the seventh hour.
     *
     * @return per table, the records of each hour ({@code dt=.../hr=...})
     */
    private Map<String, Map<String, Long>> produce(List<String> topics, long first, String silent) throws Exception {
        Map<String, Map<String, Long>> expected = new TreeMap<>();
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        long id = 0;
        for (String topic : topics) {
            stack.kafka().createTopic(topic, 2);
            Map<String, Long> perHour = expected.computeIfAbsent(table(topic), t -> new TreeMap<>());
            for (int partition = 0; partition < 2; partition++) {
                boolean falls = topic.equals(silent) && partition == 1;
                long until = first + (falls ? 2 : HOURS) * HOUR;
                for (long step = 0; first + step * 2 * MINUTE < until; step++) {
                    long at = Math.max(first, first + step * 2 * MINUTE + (step % 5 == 4 ? -8 * MINUTE : 0));
                    records.add(record(topic, partition, id++, at));
                    perHour.merge(NAME.format(Instant.ofEpochMilli(at)), 1L, Long::sum);
                }
                if (!falls) {
                    long at = first + HOURS * HOUR + 15 * MINUTE;
                    records.add(record(topic, partition, id++, at));
                    perHour.merge(NAME.format(Instant.ofEpochMilli(at)), 1L, Long::sum);
                }
            }
        }
        SampleData.sendAll(producer, records);
        return expected;
    }

    /**
     * Waits until the six hours of each table are marked, then a little more: once every partition has landed all
     * it has, each stands in the wall clock for its event time, and the hours up to the present follow.
     */
    private List<List<String>> awaitDone(List<String> topics, long first) throws Exception {
        String last = NAME.format(Instant.ofEpochMilli(first + (HOURS - 1) * HOUR));
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        List<List<String>> rows;
        do {
            Thread.sleep(2_000);
            rows = doneRows(topics);
        } while (rows.stream().filter(row -> row.get(1).equals(last)).count() < topics.size()
                && System.nanoTime() < deadline);
        Thread.sleep(5_000);
        return doneRows(topics);
    }

    /** The done rows of the topics' tables: table, time partition, period start, done time; by table and time. */
    private List<List<String>> doneRows(List<String> topics) throws Exception {
        if (!tableExists("hive_sink_done")) {
            return List.of(); // no mark yet
        }
        return stack.hive().query("select table_name, time_partition, period_start, done_time, record_count from "
                + DATABASE
                + ".hive_sink_done where table_name in ('" + String.join("', '", topics.stream()
                        .map(DonePartitionsIT::table).toList()) + "') order by table_name, time_partition");
    }

    private boolean tableExists(String table) throws Exception {
        return stack.hive().query("show tables in " + DATABASE).stream().anyMatch(row -> row.get(0).equals(table));
    }

    /**
     * Each table's hours are marked once each, from the first, without a gap, through the sixth at least and not
     * past the present; each after the last commit of a batch with its records, in order of hours; each hour's
     * records landed once, and each done hour with records has its _SUCCESS file.
     */
    private void checkDone(List<String> topics, long first, List<List<String>> doneRows,
            Map<String, Map<String, Long>> expected) throws Exception {
        Map<String, List<String>> marked = new TreeMap<>();
        for (List<String> row : doneRows) {
            marked.computeIfAbsent(row.get(0), t -> new ArrayList<>()).add(row.get(1));
        }
        long hoursSoFar = (System.currentTimeMillis() - first) / HOUR;
        for (String topic : topics) {
            List<String> hours = marked.getOrDefault(table(topic), List.of());
            assertTrue(hours.size() >= HOURS && hours.size() <= hoursSoFar, table(topic) + ": " + hours);
            for (int hour = 0; hour < hours.size(); hour++) {
                assertEquals(NAME.format(Instant.ofEpochMilli(first + hour * HOUR)), hours.get(hour),
                        table(topic) + ", each hour once, from the first, without a gap: " + hours);
            }
        }
        Map<String, String> lastCommit = new TreeMap<>();
        for (List<String> row : stack.hive().query("select table_name, partition_name, max(commit_time) from "
                + DATABASE + ".hive_sink_ledger group by table_name, partition_name")) {
            lastCommit.put(row.get(0) + " " + row.get(1), row.get(2));
        }
        Map<String, String> previous = new TreeMap<>();
        for (List<String> row : doneRows) {
            String committed = lastCommit.get(row.get(0) + " " + row.get(1));
            assertTrue(committed == null || committed.compareTo(row.get(3)) < 0, row + " marked before " + committed);
            String before = previous.put(row.get(0), row.get(3));
            assertTrue(before == null || before.compareTo(row.get(3)) <= 0, row + " marked after " + before);
        }
        FileSystem fs = stack.tableFileSystem();
        for (String topic : topics) {
            String table = table(topic);
            Map<String, Long> counted = new TreeMap<>();
            for (List<String> row : stack.hive().query("select dt, hr, count(*) from " + DATABASE + "." + table
                    + " group by dt, hr")) {
                counted.put("dt=" + row.get(0) + "/hr=" + row.get(1), Long.parseLong(row.get(2)));
            }
            assertEquals(expected.get(table), counted, table + ": every record once, in its hour");
            for (List<String> row : doneRows) {
                if (row.get(0).equals(table)) {
                    assertEquals(Long.toString(counted.getOrDefault(row.get(1), 0L)), row.get(4),
                            "the done row counts its hour's records: " + row);
                }
            }
            for (String hour : marked.get(table)) {
                if (counted.containsKey(hour)) {
                    assertEquals(Long.toString(counted.get(hour)), partitionParameter(table, hour,
                            "hive-sink.done.records"), table + " " + hour + ": its Hive partition counts its records");
                }
                // a compacted table's partitions live beside its directory, at their first generation
                String dir = "/warehouse/hive-sink/" + DATABASE + ".db/" + (compacted(table) ? "partitions_of_"
                        + table + "/" + hour + "/0" : table + "/" + hour);
                if (counted.containsKey(hour)) {
                    assertEquals(dir, new Path(partitionParameter(table, hour, "Location:")).toUri().getPath(),
                            table + " " + hour + ": where it lives");
                }
                Path success = new Path(dir, "_SUCCESS");
                assertEquals(counted.containsKey(hour), fs.exists(success), success.toString());
            }
        }
    }

    /**
     * Hive 4 takes a partition whose location contains its table's for one missing from the file system unless it is
     * at its standard path, and {@code SYNC PARTITIONS} drops those: none is (its log says how many it found).
     */
    private void repairKeepsEveryPartition(String table, java.util.concurrent.Callable<List<List<String>>> rows,
            List<List<String>> before) throws Exception {
        stack.hive().execute("msck repair table " + DATABASE + "." + table + " sync partitions");
        assertEquals(before, rows.call(), "MSCK REPAIR TABLE " + table + " ... SYNC PARTITIONS keeps every row");
        List<String> found = java.nio.file.Files.readAllLines(stack.hive().logFile()).stream()
                .filter(line -> line.contains("Msck: hive." + DATABASE + "." + table + " - ")).toList();
        assertTrue(!found.isEmpty() && found.get(found.size() - 1).contains("#partsNotInFs: 0 "),
                "MSCK finds no partition of " + table + " missing from the file system: " + found);
    }

    /** A parameter of a table's Hive partition, as HiveServer2 describes it, or null. */
    private String partitionParameter(String table, String hour, String key) throws Exception {
        return PartitionDescription.of(stack.hive(), DATABASE, table, hour, key);
    }

    private static boolean compacted(String table) {
        return table.equals("done_orders");
    }

    private static String table(String topic) {
        return topic.replace('.', '_');
    }

    private ProducerRecord<byte[], byte[]> record(String topic, int partition, long id, long at) {
        byte[] value = json.fromConnectData(topic, EVENT, new Struct(EVENT).put("id", id).put("at", at));
        return new ProducerRecord<>(topic, partition, at, Long.toString(id).getBytes(StandardCharsets.UTF_8), value);
    }
}
