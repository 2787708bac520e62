package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.FaultPoint;
import io.hivesink.commit.Fencing;
import io.hivesink.commit.TaskFencedException;
import io.hivesink.fs.HadoopFileSystems;
import io.hivesink.it.commit.CommitRig;
import io.hivesink.it.hive.MetastoreProcess;
import io.hivesink.it.stack.EmbeddedStack;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;

/**
 * Fencing by the metastore's lock API, for metastores that ignore compare-and-set, on a real metastore 4.0.1
 * whose schema (lock and transaction tables included) was made by its own Derby script, and HDFS.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LockFencingIT {

    static final String DATABASE = "locks";
    static final TopicPartition P0 = new TopicPartition("lock.events", 0);
    static final TopicPartition P1 = new TopicPartition("lock.events", 1);

    private MiniDFSCluster dfs;
    private MetastoreProcess metastoreProcess;
    private Metastore metastore;
    private ExecutorService pool;
    private CommitRig rig;

    @BeforeAll
    void start() throws Exception {
        Path work = Path.of("target", "it-stack", "LockFencingIT").toAbsolutePath();
        EmbeddedStack.deleteRecursively(work);
        dfs = new MiniDFSCluster.Builder(new Configuration(), work.resolve("hdfs").toFile()).numDataNodes(1).build();
        metastoreProcess = MetastoreProcess.start(work.resolve("metastore"), dfs.getURI().toString(),
                Map.of(MetastoreProcess.FULL_SCHEMA, "true"), MetastoreProcess.DEFAULT_START_TIMEOUT);
        Configuration conf = HadoopFileSystems.configuration("");
        metastore = ThriftMetastore.connect(new MetastoreSettings(List.of(metastoreProcess.uri()), false, "", ""));
        pool = Executors.newFixedThreadPool(2);
        rig = new CommitRig(HadoopFileSystems.open(dfs.getURI().toString(), conf), metastore, DATABASE,
                dfs.getURI() + "/warehouse", pool);
    }

    @AfterAll
    void stop() {
        if (metastore != null) {
            metastore.close();
        }
        if (metastoreProcess != null) {
            metastoreProcess.close();
        }
        if (pool != null) {
            pool.shutdownNow();
        }
        if (dfs != null) {
            dfs.shutdown(true);
        }
    }

    /**
     * On this metastore the compare-and-set cannot work: the Derby script makes TABLE_PARAMS.PARAM_VALUE a CLOB, and
     * Derby cannot compare CLOBs, so even a matching expected value fails. The startup probe finds that out and
     * auto falls back to locks.
     */
    @Test
    void autoFallsBackToLocksWhereCompareAndSetFails() {
        CommitRig.Task task = rig.task("auto-sink", 0, FaultInjector.NONE, Fencing.AUTO);
        assertEquals(Fencing.LOCKS, task.fencing());
        TopicPartition tp = new TopicPartition("auto.events", 0);
        task.committer().claim(List.of(tp));
        add(task, tp, 0, 4);
        task.commit();
        assertEquals(Map.of(tp, 4L), task.committer().committedOffsets());
    }

    @Test
    void underLocksAZombieCannotCommitAfterAnotherTaskClaimedItsPartition() throws Exception {
        CommitRig.Task zombie = rig.task("lock-sink", 0, FaultInjector.NONE, Fencing.LOCKS);
        assertEquals(Fencing.LOCKS, zombie.fencing(), "the metastore's lock API works with the full schema");
        zombie.committer().claim(List.of(P0, P1));
        add(zombie, P0, 0, 5);
        add(zombie, P1, 0, 5);
        zombie.commit();

        CommitRig.Task owner = rig.task("lock-sink", 1, FaultInjector.NONE, Fencing.LOCKS);
        assertEquals(Map.of(P0, 5L), owner.committer().claim(List.of(P0)));
        add(zombie, P0, 5, 9);
        TaskFencedException e = assertThrows(TaskFencedException.class, zombie::commit);
        assertTrue(e.getMessage().contains("another task claimed " + P0), e.getMessage());
        add(owner, P0, 5, 9);
        owner.commit();
        add(zombie, P1, 5, 7);
        zombie.commit(); // the partition it still owns
        assertEquals(Map.of(P0, 9L), owner.committer().committedOffsets());
        assertEquals(Map.of(P1, 7L), zombie.committer().committedOffsets());
        List<Long> expected = new ArrayList<>();
        for (long offset = 0; offset < 9; offset++) {
            expected.add(offset); // partition 0: offsets 0-8, by the zombie then the owner
        }
        for (long offset = 0; offset < 7; offset++) {
            expected.add(offset); // partition 1: offsets 0-6, all by the zombie
        }
        assertEquals(expected.stream().sorted().toList(), landedIds("lock_events").stream().sorted().toList(),
                "each record once; the zombie's refused batch never landed");
    }

    @Test
    void underLocksABatchInterruptedAfterItsIntentIsRolledForward() throws Exception {
        CommitRig.Task crashing = rig.task("roll-sink", 0, point -> {
            if (point == FaultPoint.HALF_MOVED) {
                throw new IllegalStateException("simulated crash");
            }
        }, Fencing.LOCKS);
        TopicPartition tp = new TopicPartition("roll.events", 0);
        crashing.committer().claim(List.of(tp));
        add(crashing, tp, 0, 6);
        assertThrows(IllegalStateException.class, crashing::commit);

        CommitRig.Task restarted = rig.task("roll-sink", 0, FaultInjector.NONE, Fencing.LOCKS);
        assertEquals(Map.of(tp, 6L), restarted.committer().claim(List.of(tp)));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), landedIds("roll_events").stream().sorted().toList());
    }

    private static void add(CommitRig.Task task, TopicPartition tp, long from, long to) {
        for (long offset = from; offset < to; offset++) {
            task.add(tp, offset, "b" + (offset % 2));
        }
    }

    /** Every id in the table's data files, read with Avro's own reader. */
    private List<Long> landedIds(String table) throws Exception {
        FileSystem fs = dfs.getFileSystem();
        List<Long> ids = new ArrayList<>();
        RemoteIterator<LocatedFileStatus> files = fs.listFiles(new org.apache.hadoop.fs.Path("/warehouse/"
                + DATABASE + ".db/" + table), true);
        while (files.hasNext()) {
            org.apache.hadoop.fs.Path path = files.next().getPath();
            if (!path.getName().endsWith(".avro")) {
                continue;
            }
            try (InputStream in = fs.open(path);
                    DataFileStream<GenericRecord> reader = new DataFileStream<>(in, new GenericDatumReader<>())) {
                reader.forEach(r -> ids.add((Long) r.get("id")));
            }
        }
        return ids;
    }

}
