package io.hivesink.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.commit.TaskState;
import io.hivesink.done.Watermarks;
import io.hivesink.metastore.InMemoryMetastore;

/**
 * The event times a commit lands go into its task's state, and every task's commits move the watermark of the
 * tables: the least, over the Kafka partitions that feed a table, of their greatest committed event time, less the
 * lateness allowed; a partition with no event time committed holds the table back.
 */
class WatermarkUpdatesTest {

    private static final TopicPartition P0 = new TopicPartition("events", 0);
    private static final TopicPartition P1 = new TopicPartition("events", 1);
    private static final long HOUR = 3_600_000L;
    private static final long T = 1_795_000_000_000L; // 2026-11-18T11:06:40Z

    @TempDir
    Path dir;
    private final InMemoryMetastore metastore = new InMemoryMetastore();
    private PartsRig rig;

    @BeforeEach
    void rig() {
        rig = new PartsRig(dir, metastore, System::currentTimeMillis);
    }

    @AfterEach
    void close() throws Exception {
        rig.close();
    }

    private TaskParts timePartitioned(int task, TopicPartition tp) {
        TaskParts parts = rig.task(task, Map.of("partitioner", "time", "partition.time.pattern",
                "dt=yyyy-MM-dd/hr=HH", "partition.done.lateness.ms", "60000",
                "table.events.partition.done.lateness.ms", "120000"));
        parts.committer().claim(List.of(tp));
        return parts;
    }

    /** The event time the task's state in the metastore holds of the partition. */
    private static long eventTimeIn(TaskParts parts, TopicPartition tp) {
        return parts.metastore().states().read(parts.run().task()).state().partitions().get(tp).eventTime();
    }

    @Test
    void eachCommitRecordsItsEventTimesAndMovesTheWatermarkOfTheTable() throws Exception {
        TaskParts first = timePartitioned(0, P0);
        TaskParts second = timePartitioned(1, P1);
        CommitPipeline pipeline0 = rig.pipeline(first, null);
        CommitPipeline pipeline1 = rig.pipeline(second, null);

        rig.takeStamped(first, P0, 0, T + 10, T + 2 * HOUR, T + HOUR); // disordered: the greatest counts
        pipeline0.send(first.buffer().drain(), 1, "test");
        assertEquals(T + 2 * HOUR, eventTimeIn(first, P0));
        assertEquals(Watermarks.NONE, first.watermarks().of("events"), "P1 has committed no event time yet");

        rig.takeStamped(second, P1, 0, T + 5, T + HOUR + 30_000);
        pipeline1.send(second.buffer().drain(), 1, "test");
        assertEquals(T + HOUR + 30_000 - 120_000, second.watermarks().of("events"),
                "the least of the partitions, less the table's own lateness");

        rig.takeStamped(first, P0, 3, T + 3 * HOUR);
        pipeline0.send(first.buffer().drain(), 1, "test");
        assertEquals(T + HOUR + 30_000 - 120_000, first.watermarks().of("events"), "read from the other's state");
        assertEquals(Map.of(P0, T + 3 * HOUR, P1, T + HOUR + 30_000), first.committer().landedEventTimes());

        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName gauges = new ObjectName("kafka.connect:type=plugins,connector=conn,task=0,table=events");
        assertEquals(T + HOUR + 30_000 - 120_000, ((Number) server.getAttribute(gauges, "table-watermark-ms"))
                .longValue());
        long watermark = T + HOUR + 30_000 - 120_000;
        assertEquals(Math.floorDiv(watermark, HOUR) * HOUR, ((Number) server.getAttribute(gauges,
                "table-complete-before-ms")).longValue(), "the hours before the watermark's are complete");
        long lag = ((Number) server.getAttribute(gauges, "table-watermark-lag-ms")).longValue();
        long expected = System.currentTimeMillis() - (T + HOUR + 30_000 - 120_000);
        assertTrue(Math.abs(expected - lag) < 60_000, "now minus the watermark: " + lag + ", about " + expected);
    }

    @Test
    void recordsWithoutAPartitionerByTimeKeepNoEventTimeAndNoWatermark() {
        TaskParts parts = rig.task(0);
        parts.committer().claim(List.of(P0));
        CommitPipeline pipeline = rig.pipeline(parts, null);
        rig.takeStamped(parts, P0, 0, T, T + HOUR);
        pipeline.send(parts.buffer().drain(), 1, "test");
        assertEquals(Map.of(P0, TaskState.PartitionState.NO_TIME), parts.committer().landedEventTimes());
        assertEquals(Map.of(), parts.watermarks().all());
    }

    @Test
    void aTimeAheadOfTheClockCountsAsNowAndANewOwnerStartsWithNoTime() {
        TaskParts first = timePartitioned(0, P0);
        CommitPipeline pipeline = rig.pipeline(first, null);
        long before = System.currentTimeMillis();
        rig.takeStamped(first, P0, 0, T, T + 100L * 365 * 24 * HOUR); // a field in the wrong unit, say
        pipeline.send(first.buffer().drain(), 1, "test");
        long recorded = eventTimeIn(first, P0);
        assertTrue(recorded >= before && recorded <= System.currentTimeMillis(), "capped at the clock: " + recorded);

        TaskParts second = timePartitioned(1, P0); // the group gives P0 to task 1
        assertEquals(TaskState.PartitionState.NO_TIME, eventTimeIn(second, P0), "none until it commits some");
        assertEquals(Map.of(P0, TaskState.PartitionState.NO_TIME), second.committer().landedEventTimes(),
                "the owner's line is the partition's word, not the earlier owner's");
    }

    private static final Schema KINDS = SchemaBuilder.struct().name("Kinded").field("id", Schema.INT64_SCHEMA)
            .field("kind", Schema.STRING_SCHEMA).field("at", Schema.INT64_SCHEMA).build();

    @Test
    void routedByAFieldATableOnAnotherClockGivesNoEventTimes() {
        TaskParts parts = rig.task(0, Map.of("route.field", "kind", "route.table.template", "web_${field}",
                "partitioner", "time", "table.web_b.partition.time.field", "at"));
        parts.committer().claim(List.of(P0));
        CommitPipeline pipeline = rig.pipeline(parts, null);
        parts.buffer().add(new SinkRecord("events", 0, null, null, KINDS, new Struct(KINDS).put("id", 0L)
                .put("kind", "a").put("at", 0L), 0, T, TimestampType.CREATE_TIME), 0);
        parts.buffer().add(new SinkRecord("events", 0, null, null, KINDS, new Struct(KINDS).put("id", 1L)
                .put("kind", "b").put("at", T + 5 * HOUR), 1, T, TimestampType.CREATE_TIME), 0);
        pipeline.send(parts.buffer().drain(), 1, "test");
        assertEquals(T, eventTimeIn(parts, P0), "web_a's record timestamp, not web_b's field five hours later");
        assertEquals(Set.of("web_a"), parts.watermarks().all().keySet(), "web_b has no watermark");
    }
}
