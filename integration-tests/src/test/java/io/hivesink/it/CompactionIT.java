package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
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
import io.hivesink.it.support.TaskMetricsOverJmx;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.connect.ConnectWorkerProcess;
import io.hivesink.stack.hive.MetastoreRelease;

/**
 * Compaction on real parts (docs/compaction.md): a Connect worker's two tasks land hours of records in many small
 * files per hour, mark the hours done and compact them; Hive 4.0 and Spark read every record once before and after,
 * the compaction log has a row per partition, Hive's MSCK REPAIR TABLE ... SYNC PARTITIONS keeps every compacted
 * partition, the old directories go after the retention, and a late record lands in a compacted hour. Each test's
 * table has a format of its own, so that each format's merging meets the faults on every stack a subclass runs:
 * Avro (block copies) in the first, Parquet (encoded again) in the kill test and the query across the swap, ORC in
 * the stalled steps. The reader matrix reads compacted tables of all three, value for value.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
class CompactionIT {

    private static final String DATABASE = "compact_it";
    private static final String TOPIC = "compact.orders";
    private static final String TABLE = "compact_orders";
    private static final Schema EVENT = SchemaBuilder.struct().name("io.hivesink.it.Event")
            .field("id", Schema.INT64_SCHEMA)
            .field("at", Schema.INT64_SCHEMA)
            .build();
    private static final long MINUTE = 60_000L;
    private static final long HOUR = 3_600_000L;
    private static final int HOURS = 4;
    private static final long LATE_ID = 900_000;
    private static final String BATCH_ID = ", 'part-(.+)-[0-9]+[.][a-z]+$', 1) = b.batch_id";
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
    void doneHoursAreCompactedOnceAndHiveAndSparkReadEveryRecordOnce() throws Exception {
        String connector = "compact-sink";
        long first = firstHour();
        Map<String, Long> expected = produce(TOPIC, first);
        Map<String, String> config = connectorConfig(connector, TOPIC, TABLE, "avro");
        List<String> hours = hours(first);
        try (ConnectWorkerProcess worker = stack.startWorker(connector, Map.of(), Map.of())) {
            worker.rest().putConnector(connector, config);
            stack.awaitCommittedToEnd(connector, Duration.ofMinutes(3), List.of(TOPIC));
            EmbeddedStack.await("the first " + HOURS + " hours compacted", Duration.ofMinutes(3),
                    () -> hours.stream().allMatch(hour -> !generationOf(TABLE, hour).equals("0")));
            assertEquals(expected, counted("select concat('dt=', dt, '/hr=', hr), count(*) from " + DATABASE + "."
                    + TABLE + " group by dt, hr"), "Hive: every record once, in its hour");
            FileSystem fs = stack.tableFileSystem();
            Map<String, Long> logged = new TreeMap<>();
            for (List<String> row : stack.hive().query("select partition_name, record_count, size(replaced_files), "
                    + "size(merged_files) from " + DATABASE + ".hive_sink_compactions where table_name = '" + TABLE
                    + "'")) {
                assertEquals(null, logged.put(row.get(0), Long.parseLong(row.get(1))), "one compaction each: " + row);
                assertTrue(Integer.parseInt(row.get(2)) >= 3 && row.get(3).equals("1"), "small files, one merged: "
                        + row);
            }
            for (String hour : hours) {
                assertEquals(expected.get(hour), logged.get(hour), hour + ": the log counts its records");
                Path location = new Path(location(TABLE, hour));
                assertEquals("/warehouse/hive-sink/" + DATABASE + ".db/partitions_of_" + TABLE + "/" + hour,
                        location.getParent().toUri().getPath(), hour + ": a generation beside the table");
                List<String> files = new ArrayList<>();
                for (FileStatus file : fs.listStatus(location)) {
                    files.add(file.getPath().getName());
                }
                assertEquals(1, files.stream().filter(name -> !name.startsWith("_")).count(), hour + ": " + files);
                assertTrue(files.contains("_SUCCESS"), hour + ": the done marker's file stays: " + files);
            }
            EmbeddedStack.await("the old directories retired", Duration.ofMinutes(2), () -> hours.stream()
                    .noneMatch(hour -> exists(fs, "/warehouse/hive-sink/" + DATABASE + ".db/partitions_of_" + TABLE
                            + "/" + hour + "/0")));
            // what an operator's agent reads over JMX: the compactions, their files and bytes, the retirements
            EmbeddedStack.await("the retirements counted", Duration.ofMinutes(1), () -> metrics(worker, connector)
                    .sum("compaction-directories-retired-total") >= HOURS);
            TaskMetricsOverJmx metrics = metrics(worker, connector);
            assertEquals(HOURS, metrics.sum("compactions-total"), "one compaction per hour: " + metrics);
            assertEquals(logged.size(), metrics.sum("compactions-total"));
            assertTrue(metrics.sum("compaction-files-replaced-total") >= 3L * HOURS, metrics.toString());
            assertEquals(HOURS, metrics.sum("compaction-files-written-total"), "one merged file per hour");
            assertTrue(metrics.sum("compaction-bytes-rewritten-total") > 0, metrics.toString());
            assertEquals(0, metrics.sum("compaction-retirements-overdue"));

            // a late record lands in its compacted hour, where the partition is now
            SampleData.sendAll(producer, List.of(record(TOPIC, 0, LATE_ID, first + 10 * MINUTE)));
            stack.awaitCommittedToEnd(connector, Duration.ofMinutes(2), List.of(TOPIC));
            expected.merge(hours.get(0), 1L, Long::sum);
            assertEquals(List.of(List.of(hours.get(0))), stack.hive().query("select concat('dt=', dt, '/hr=', hr) "
                    + "from " + DATABASE + "." + TABLE + " where id = " + LATE_ID), "the late record, once");
        }
        assertEquals(expected, counted("select concat('dt=', dt, '/hr=', hr), count(*) from " + DATABASE + "."
                + TABLE + " group by dt, hr"), "Hive, after the late record");
        // the README's complete-batches query, with the compaction log's ids: every record once, as before
        long total = expected.values().stream().mapToLong(Long::longValue).sum();
        assertEquals(List.of(List.of(Long.toString(total), Long.toString(total))), completeBatchesCount(TABLE),
                "Hive: the complete batches hold every record once");
        Map<String, Long> spark = new TreeMap<>();
        for (List<String> row : stack.spark().query("select concat('dt=', dt, '/hr=', hr), count(*) from "
                + DATABASE + "." + TABLE + " group by dt, hr").get(0)) {
            spark.put(row.get(0), Long.parseLong(row.get(1)));
        }
        assertEquals(expected, spark, "Spark reads the compacted partitions as Hive does");
        repairKeepsEveryPartition(TABLE, expected);
        System.out.printf("CompactionIT: %d hours compacted into one file each, %d records, read once by Hive and "
                + "Spark%n", HOURS, expected.values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    void aWorkerKilledAtEachStepOfACompactionLosesNoRecordAndLeavesNoPartitionHeld() throws Exception {
        String connector = "compact-crash";
        String topic = "crash.orders";
        String table = "crash_orders";
        long first = firstHour();
        Map<String, Long> expected = produce(topic, first);
        Map<String, String> config = connectorConfig(connector, topic, table, "parquet");
        config.put("compaction.hold.max.ms", "5000"); // a hold another task's killed run left is ended after 10 s
        List<String> crashes = new ArrayList<>();
        for (FaultPoint point : FaultPoint.compactionSteps()) {
            try (ConnectWorkerProcess worker = stack.startWorker(connector, Map.of(),
                    Map.of(FaultInjector.ENVIRONMENT, point.name()))) {
                worker.rest().putConnector(connector, config);
                assertEquals(FaultInjector.HALT_STATUS, worker.awaitExit(Duration.ofMinutes(3)),
                        "the worker halts at " + point);
                crashes.add(point + " (" + worker.logLines().stream().filter(l -> l.contains("Compacted partition"))
                        .count() + " compacted before)");
            }
        }
        List<String> hours = hours(first);
        try (ConnectWorkerProcess survivor = stack.startWorker(connector, Map.of(), Map.of())) {
            survivor.rest().putConnector(connector, config);
            stack.awaitCommittedToEnd(connector, Duration.ofMinutes(3), List.of(topic));
            awaitEveryHourCompacted(table, hours);
        }
        long total = assertEveryRecordOnce(table, expected);
        List<List<String>> logged = stack.hive().query("select partition_name from " + DATABASE
                + ".hive_sink_compactions where table_name = '" + table + "' order by partition_name");
        assertEquals(hours, logged.stream().map(row -> row.get(0)).toList(), "one finished compaction per hour");
        FileSystem fs = stack.tableFileSystem();
        for (String hour : hours) {
            List<String> merged = new ArrayList<>();
            for (FileStatus generation : fs.listStatus(new Path("/warehouse/hive-sink/" + DATABASE
                    + ".db/partitions_of_" + table + "/" + hour))) {
                if (generation.getPath().getName().contains("-k-")) {
                    merged.add(generation.getPath().getName());
                }
            }
            assertEquals(List.of(generationOf(table, hour)), merged,
                    hour + ": no merged files of a compaction stopped before its decision are left");
        }
        repairKeepsEveryPartition(table, expected);
        System.out.printf("CompactionIT: killed at %s; then each of %d hours compacted once, %d records%n", crashes,
                HOURS, total);
    }

    /**
     * MSCK REPAIR TABLE ... SYNC PARTITIONS keeps every compacted partition: Hive 4.0 takes one whose location is
     * inside its table's directory but not at its standard path for one missing from the file system (its log says
     * how many it found), 3.1 one whose location does not exist.
     */
    private void repairKeepsEveryPartition(String table, Map<String, Long> expected) throws Exception {
        List<List<String>> partitions = stack.hive().query("show partitions " + DATABASE + "." + table);
        stack.hive().execute("msck repair table " + DATABASE + "." + table + " sync partitions");
        assertEquals(partitions, stack.hive().query("show partitions " + DATABASE + "." + table),
                "MSCK REPAIR TABLE " + table + " ... SYNC PARTITIONS keeps every partition");
        assertEquals(expected, counted("select concat('dt=', dt, '/hr=', hr), count(*) from " + DATABASE + "."
                + table + " group by dt, hr"), "and every record, where it was");
        if (stack.metastore().release() == MetastoreRelease.HIVE_4_0) {
            List<String> found = java.nio.file.Files.readAllLines(stack.hive().logFile()).stream()
                    .filter(line -> line.contains("Msck: hive." + DATABASE + "." + table + " - ")).toList();
            assertFalse(found.isEmpty());
            assertTrue(found.get(found.size() - 1).contains("#partsNotInFs: 0 "), found.toString());
        }
    }

    @Test
    void batchesLandInHoursWhoseCompactionStallsAtEachStep() throws Exception {
        String connector = "compact-during";
        String topic = "during.orders";
        String table = "during_orders";
        long first = firstHour();
        Map<String, Long> expected = produce(topic, first);
        Map<String, String> config = connectorConfig(connector, topic, table, "orc");
        config.put("compaction.hold.max.ms", "120000"); // no finder ends a hold through the stalls
        java.nio.file.Path faults = java.nio.file.Files.createTempFile(stack.workDir(), "compaction-", ".fault")
                .toAbsolutePath(); // the worker runs elsewhere
        List<FaultPoint> steps = FaultPoint.compactionSteps();
        java.nio.file.Files.writeString(faults, stall(steps.get(0)));
        List<String> hours = hours(first);
        long id = LATE_ID + 1_000;
        try (ConnectWorkerProcess worker = stack.startWorker(connector, Map.of(),
                Map.of(FaultInjector.ENVIRONMENT_FILE, faults.toString()))) {
            worker.rest().putConnector(connector, config);
            for (int step = 0; step < steps.size(); step++) {
                String stalling = "stalling at " + steps.get(step);
                EmbeddedStack.await("a compaction stalled at " + steps.get(step), Duration.ofMinutes(3),
                        () -> worker.logLines().stream().anyMatch(line -> line.contains(stalling)));
                // a batch into every hour while the compaction stalls: the stalled one's hour among them
                List<ProducerRecord<byte[], byte[]>> late = new ArrayList<>();
                for (int hour = 0; hour < HOURS; hour++) {
                    late.add(record(topic, hour % 2, id++, first + hour * HOUR + 30 * MINUTE));
                    expected.merge(hours.get(hour), 1L, Long::sum);
                }
                SampleData.sendAll(producer, late);
                // the next step's stall armed while this one lasts: the same compaction meets it
                java.nio.file.Files.writeString(faults, step + 1 < steps.size() ? stall(steps.get(step + 1)) : "");
            }
            stack.awaitCommittedToEnd(connector, Duration.ofMinutes(3), List.of(topic));
            awaitEveryHourCompacted(table, hours);
        }
        long total = assertEveryRecordOnce(table, expected); // those sent during each step too
        System.out.printf("CompactionIT: %d records sent into every hour while a compaction stalled at each of %s; "
                + "%d records read once%n", HOURS, steps, total);
    }

    @Test
    void aHiveQueryRunningAcrossTheSwapReadsTheOldFilesOnce() throws Exception {
        String connector = "compact-long";
        String topic = "long.orders";
        String table = "long_orders";
        long first = firstHour();
        Map<String, Long> expected = produce(topic, first);
        Map<String, String> config = connectorConfig(connector, topic, table, "parquet");
        config.put("compaction.retention.ms", "600000"); // the old directory stays for the queries that listed it
        java.nio.file.Path faults = java.nio.file.Files.createTempFile(stack.workDir(), "compaction-", ".fault")
                .toAbsolutePath();
        java.nio.file.Files.writeString(faults, FaultPoint.COMPACTION_DECIDED + ":1:stall=20000");
        java.util.concurrent.ExecutorService background = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (ConnectWorkerProcess worker = stack.startWorker(connector, Map.of(),
                Map.of(FaultInjector.ENVIRONMENT_FILE, faults.toString()))) {
            worker.rest().putConnector(connector, config);
            EmbeddedStack.await("a compaction decided and stalled before its swap", Duration.ofMinutes(3),
                    () -> worker.logLines().stream().anyMatch(line -> line.contains("stalling at "
                            + FaultPoint.COMPACTION_DECIDED)));
            // its compactor's thread names the task's instance, and the compaction ids of this run start with it
            String stalled = worker.logLines().stream().filter(line -> line.contains("stalling at "
                    + FaultPoint.COMPACTION_DECIDED)).findFirst().orElseThrow();
            String instance = stalled.substring(stalled.indexOf("[hive-sink-") + "[hive-sink-".length(),
                    stalled.indexOf("-compactor]"));
            String hour = stack.hive().query("select partition_name from " + DATABASE + ".hive_sink_compactions "
                    + "where table_name = '" + table + "' and compaction_id like '" + instance + "-k-%'").stream()
                    .map(row -> row.get(0)).filter(logged -> generationOf(table, logged).equals("0")).findFirst()
                    .orElseThrow();
            // a query that lists the hour's old directory now and reads its files slowly, across the swap
            int slash = hour.indexOf("/hr=");
            String[] values = {hour.substring("dt=".length(), slash), hour.substring(slash + "/hr=".length())};
            java.util.concurrent.Future<List<List<String>>> query = background.submit(() -> stack.hive().query(
                    "select count(*), count(distinct id), max(reflect('java.lang.Thread', 'sleep', cast(600 + id * "
                            + "0 as bigint))) from " + DATABASE + "." + table + " where dt = '" + values[0]
                            + "' and hr = '" + values[1] + "'"));
            EmbeddedStack.await(hour + " swapped", Duration.ofMinutes(2), () -> worker.logLines().stream()
                    .anyMatch(line -> line.contains("Compacted partition " + hour + " ")));
            assertFalse(query.isDone(), "the query still reads when the partition is swapped");
            String records = Long.toString(expected.get(hour));
            assertEquals(List.of(records, records), query.get(3, java.util.concurrent.TimeUnit.MINUTES).get(0)
                    .subList(0, 2), hour + ": the old files' records, once: neither both generations nor none");
            assertEquals(List.of(List.of(records)), stack.hive().query("select count(*) from " + DATABASE + "."
                    + table + " where dt = '" + values[0] + "' and hr = '" + values[1] + "'"),
                    hour + ": a query after the swap reads the merged files");
            System.out.printf("CompactionIT: a Hive query over %s ran across its swap and read %s records once%n",
                    hour, records);
        } finally {
            background.shutdownNow();
        }
    }

    private void awaitEveryHourCompacted(String table, List<String> hours) throws InterruptedException {
        EmbeddedStack.await("every hour of " + table + " compacted", Duration.ofMinutes(3),
                () -> hours.stream().allMatch(hour -> !generationOf(table, hour).equals("0")));
    }

    /** Every record once, in its hour, and the README's complete-batches query holds them all; returns how many. */
    private long assertEveryRecordOnce(String table, Map<String, Long> expected) throws Exception {
        assertEquals(expected, counted("select concat('dt=', dt, '/hr=', hr), count(*) from " + DATABASE + "." + table
                + " group by dt, hr"), "every record once, in its hour");
        long total = expected.values().stream().mapToLong(Long::longValue).sum();
        assertEquals(List.of(List.of(Long.toString(total), Long.toString(total))), completeBatchesCount(table),
                "the complete batches hold every record once");
        return total;
    }

    private static TaskMetricsOverJmx metrics(ConnectWorkerProcess worker, String connector) {
        try {
            return TaskMetricsOverJmx.read(worker, connector);
        } catch (Exception e) {
            throw new IllegalStateException("Could not read the task metrics over JMX", e);
        }
    }

    private static String stall(FaultPoint step) {
        return step.name() + ":1:stall=20000";
    }

    private static long firstHour() {
        return Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(8)).toEpochMilli();
    }

    private static List<String> hours(long first) {
        List<String> hours = new ArrayList<>();
        for (int hour = 0; hour < HOURS; hour++) {
            hours.add(NAME.format(Instant.ofEpochMilli(first + hour * HOUR)));
        }
        return hours;
    }

    /** A connector of two tasks landing the topic's records in small files of a table of the format. */
    private Map<String, String> connectorConfig(String connector, String topic, String table, String format) {
        Map<String, String> config = stack.connectorConfig(connector, DATABASE);
        config.put("topics", topic);
        config.put("table." + table + ".format", format);
        config.put("tasks.max", "2");
        config.put("partitioner", "time");
        config.put("partition.time.field", "at");
        config.put("partition.time.pattern", "dt=yyyy-MM-dd/hr=HH");
        config.put("partition.done.lateness.ms", Long.toString(10 * MINUTE));
        config.put("partition.done.idle.ms", "5000");
        config.put("batch.max.records", "10"); // about three files per hour and task
        config.put("table." + table + ".compaction.enabled", "true");
        config.put("compaction.min.files", "3");
        config.put("compaction.retention.ms", "0");
        config.put("compaction.hold.max.ms", "60000");
        // where locks fence, those a killed worker leaves are broken after this long
        config.put("hive.metastore.lock.stale.ms", "10000");
        return config;
    }

    /**
     * The README's complete-batches query over a compacted table, on Hive: how many records, and how many distinct
     * ids. Hive 3.1.3 fails its map join ({@code docs/compatibility.md}); there it runs with the documented setting.
     */
    private List<List<String>> completeBatchesCount(String table) {
        boolean hive31 = stack.metastore().release() == MetastoreRelease.HIVE_3_1;
        if (hive31) {
            stack.hive().execute("set hive.auto.convert.join=false");
        }
        try {
            return stack.hive().query("select count(*), count(distinct o.id) from " + DATABASE + "." + table + " o"
                    + completeBatches(table) + "o.INPUT__FILE__NAME" + BATCH_ID);
        } finally {
            if (hive31) {
                stack.hive().execute("set hive.auto.convert.join=true");
            }
        }
    }

    /** The README's join on the complete batches of a compacted table: the ledger's ids and the log's. */
    private static String completeBatches(String table) {
        return " join (select distinct batch_id from " + DATABASE + ".hive_sink_ledger where table_name = '" + table
                + "' union select compaction_id from " + DATABASE + ".hive_sink_compactions where table_name = '"
                + table + "') b on regexp_extract(";
    }

    /** Four hours of records to two partitions, every two minutes, and one a quarter past the fifth hour each. */
    private Map<String, Long> produce(String topic, long first) throws Exception {
        stack.kafka().createTopic(topic, 2);
        Map<String, Long> perHour = new TreeMap<>();
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        long id = 0;
        for (int partition = 0; partition < 2; partition++) {
            for (long at = first; at < first + HOURS * HOUR; at += 2 * MINUTE) {
                records.add(record(topic, partition, id++, at));
                perHour.merge(NAME.format(Instant.ofEpochMilli(at)), 1L, Long::sum);
            }
            long at = first + HOURS * HOUR + 15 * MINUTE;
            records.add(record(topic, partition, id++, at));
            perHour.merge(NAME.format(Instant.ofEpochMilli(at)), 1L, Long::sum);
        }
        SampleData.sendAll(producer, records);
        return perHour;
    }

    private Map<String, Long> counted(String query) throws Exception {
        Map<String, Long> counted = new TreeMap<>();
        for (List<String> row : stack.hive().query(query)) {
            counted.put(row.get(0), Long.parseLong(row.get(1)));
        }
        return counted;
    }

    /** The partition's location, as HiveServer2 describes it; null if it is not there yet. */
    private String location(String table, String hour) {
        try {
            return PartitionDescription.of(stack.hive(), DATABASE, table, hour, "Location:");
        } catch (Exception e) {
            return null;
        }
    }

    private String generationOf(String table, String hour) {
        String location = location(table, hour);
        return location == null ? "0" : new Path(location).getName();
    }

    private static boolean exists(FileSystem fs, String path) {
        try {
            return fs.exists(new Path(path));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private ProducerRecord<byte[], byte[]> record(String topic, int partition, long id, long at) {
        byte[] value = json.fromConnectData(topic, EVENT, new Struct(EVENT).put("id", id).put("at", at));
        return new ProducerRecord<>(topic, partition, at, Long.toString(id).getBytes(StandardCharsets.UTF_8), value);
    }
}
