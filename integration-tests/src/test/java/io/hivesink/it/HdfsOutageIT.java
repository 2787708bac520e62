package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.SafeModeAction;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.hivesink.it.support.DataNodes;
import io.hivesink.it.support.OutageChecks;
import io.hivesink.it.support.RecordFlow;
import io.hivesink.it.support.StackExtension;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.connect.ConnectWorkerProcess;

/**
 * HDFS outages on stock workers while records flow, each met by a task start or a rebalance: a DataNode of three lost
 * as a second worker joins; HDFS in safe mode for 30 s while every task of the connector is restarted; the NameNode
 * restarted while they are. Each ends with every record exactly once, through Hive, and every task running, with
 * nobody restarting anything after the outage.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
@DataNodes(3)
class HdfsOutageIT {

    static final String DATABASE = "hdfs_outage";
    static final Duration SAFE_MODE = Duration.ofSeconds(30);

    private FailoverStack stack;
    private OutageChecks checks;

    @BeforeAll
    void start(FailoverStack failover) {
        stack = failover;
        checks = new OutageChecks(stack, DATABASE);
    }

    @Test
    void aDataNodeLostAsAWorkerJoinsLosesAndDuplicatesNothing() throws Exception {
        String topic = "hdfs.datanode";
        String connector = "datanode-lost";
        stack.kafka().createTopic(topic, 4);
        MiniDFSCluster.DataNodeProperties lost = null;
        try (ConnectWorkerProcess first = stack.startWorker(connector, Map.of(), Map.of());
                KafkaProducer<byte[], byte[]> producer = stack.kafka().createProducer(SampleData.producerSettings())) {
            RecordFlow flow = new RecordFlow(producer, topic);
            ConnectWorkerProcess second = null;
            try {
                first.rest().putConnector(connector, checks.connector(connector, topic));
                EmbeddedStack.await("a first batch", Duration.ofMinutes(2), () -> checks.landed("hdfs_datanode") > 0);
                lost = stack.dfs().stopDataNode(0);
                Thread.sleep(5_000);
                second = stack.startWorker(connector, Map.of(), Map.of()); // a rebalance, one DataNode gone
                Thread.sleep(15_000);
            } finally {
                flow.stop();
            }
            long produced = flow.produced();
            checks.assertEachRecordOnce("hdfs_datanode", topic, produced);
            OutageChecks.assertTasksRunning(first, connector, 2);
            System.out.printf("HdfsOutageIT: %,d records landed once each; a DataNode of three lost, a worker "
                    + "joined 5 s later%n", produced);
            second.close();
        } finally {
            if (lost != null) {
                stack.dfs().restartDataNode(lost, true);
                stack.dfs().waitActive();
            }
        }
    }

    @Test
    void hdfsInSafeModeWhileEveryTaskRestartsLosesAndDuplicatesNothing() throws Exception {
        String connector = "safe-mode";
        OutageChecks.Ridden ridden = checks.ridesOut("hdfs.safemode", connector, worker -> {
            long enteredAt = System.nanoTime();
            stack.dfs().getNameNodeRpc().setSafeMode(SafeModeAction.SAFEMODE_ENTER, false);
            try {
                Thread.sleep(2_000);
                worker.rest().restartConnectorAndTasks(connector); // tasks stop and start while HDFS is read-only
                Thread.sleep(Math.max(0, SAFE_MODE.toMillis() - (System.nanoTime() - enteredAt) / 1_000_000));
            } finally {
                stack.dfs().getNameNodeRpc().setSafeMode(SafeModeAction.SAFEMODE_LEAVE, false);
            }
            System.out.printf("HdfsOutageIT: HDFS in safe mode for %d s; every task restarted 2 s in%n",
                    (System.nanoTime() - enteredAt) / 1_000_000_000);
        });
        List<String> waits = ridden.workerLog().stream().filter(line -> line.contains("HDFS cannot be written yet"))
                .toList();
        System.out.printf("HdfsOutageIT: %,d records landed once each across 30 s of safe mode; %d waits at "
                + "task start logged, the first: %s%n", ridden.produced(), waits.size(), waits.isEmpty() ? "-"
                : waits.get(0));
        assertTrue(!waits.isEmpty(), "the restarted tasks met safe mode at their start, and waited");
    }

    @Test
    void aNameNodeRestartWhileEveryTaskRestartsLosesAndDuplicatesNothing() throws Exception {
        String connector = "namenode-start";
        long produced = checks.ridesOut("hdfs.namenode", connector, worker -> {
            long restartAt = System.nanoTime();
            CompletableFuture<Void> restart = CompletableFuture.runAsync(() -> EmbeddedStack.unchecked(() -> {
                stack.dfs().restartNameNode(true);
                return null;
            }));
            worker.rest().restartConnectorAndTasks(connector);
            restart.join();
            System.out.printf("HdfsOutageIT: NameNode restarted in %d ms while every task restarted%n",
                    (System.nanoTime() - restartAt) / 1_000_000);
        }).produced();
        System.out.printf("HdfsOutageIT: %,d records landed once each across a NameNode restart at task "
                + "start%n", produced);
    }
}
