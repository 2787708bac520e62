package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.hivesink.it.support.OutageChecks;
import io.hivesink.it.support.RecordFlow;
import io.hivesink.it.support.StackExtension;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.connect.ConnectWorkerProcess;

/**
 * Outages of the parts the connector depends on, on stock workers while records flow; each ends with every record
 * exactly once, through Hive, and every task running, with nobody restarting anything.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
class OutageIT {

    static final String DATABASE = "outage";
    static final Duration OUTAGE = Duration.ofSeconds(60);

    FailoverStack stack;
    OutageChecks checks;

    @BeforeAll
    void start(FailoverStack failover) {
        stack = failover;
        checks = checks();
    }

    /** What the test checks once an outage is over, counting through HiveServer2 here. */
    OutageChecks checks() {
        return new OutageChecks(stack, DATABASE);
    }

    /**
     * The metastore's JVM is killed for a minute while two tasks take records; 20 s into the outage a second worker
     * joins, so one task starts on it and the other has its partitions revoked and assigned again, all while no
     * metastore answers.
     */
    @Test
    void theMetastoreDownForAMinuteAcrossARebalanceLosesAndDuplicatesNothing() throws Exception {
        String topic = "outage.orders";
        String connector = "metastore-outage";
        stack.kafka().createTopic(topic, 4);
        ConnectWorkerProcess first = stack.startWorker("metastore-outage", Map.of(), Map.of());
        ConnectWorkerProcess second = null;
        try (KafkaProducer<byte[], byte[]> producer = stack.kafka().createProducer(SampleData.producerSettings())) {
            RecordFlow flow = new RecordFlow(producer, topic);
            first.rest().putConnector(connector, checks.connector(connector, topic));
            EmbeddedStack.await("a first batch", Duration.ofMinutes(2), () -> checks.landed("outage_orders") > 0);

            long downAt = System.nanoTime();
            stack.metastore().kill();
            Thread.sleep(20_000);
            second = stack.startWorker("metastore-outage", Map.of(), Map.of()); // a rebalance, the metastore down
            Thread.sleep(Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - downAt) / 1_000_000));
            long producedDuringOutage = flow.produced();
            stack.metastore().restart();
            System.out.printf("OutageIT: metastore down %d s, a worker joined 20 s in; %,d records produced by then%n",
                    (System.nanoTime() - downAt) / 1_000_000_000, producedDuringOutage);
            Thread.sleep(10_000);
            flow.stop();
            long produced = flow.produced();
            checks.assertEachRecordOnce("outage_orders", topic, produced);
            OutageChecks.assertTasksRunning(first, connector, 2);
            List<String> log = new ArrayList<>(first.logLines());
            log.addAll(second.logLines());
            long postponed = log.stream().filter(l -> l.contains("cannot be claimed yet")).count();
            long startWaits = log.stream().filter(l -> l.contains("No metastore answers yet")).count();
            System.out.printf("OutageIT: %,d records landed once each; %d postponed claims, %d waits at task "
                    + "start logged%n", produced, postponed, startWaits);
            assertTrue(postponed + startWaits > 0, "the rebalance met the outage");
        } finally {
            if (!stack.metastore().isAlive()) {
                stack.metastore().restart();
            }
            first.close();
            if (second != null) {
                second.close();
            }
        }
    }

    /** The NameNode restarts while two tasks take records and commit batches. */
    @Test
    void aNameNodeRestartWhileRecordsFlowLosesAndDuplicatesNothing() throws Exception {
        long produced = checks.ridesOut("outage.namenode", "namenode-restart", worker -> {
            long restartAt = System.nanoTime();
            stack.dfs().restartNameNode(true);
            System.out.printf("OutageIT: NameNode restarted in %d ms while records flowed%n",
                    (System.nanoTime() - restartAt) / 1_000_000);
        }).produced();
        System.out.printf("OutageIT: %,d records landed once each across a NameNode restart%n", produced);
    }
}
