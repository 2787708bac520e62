package io.hivesink.compact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.commit.Fencing;
import io.hivesink.commit.Manifest;
import io.hivesink.commit.StateHolds;
import io.hivesink.commit.StateTables;
import io.hivesink.commit.TaskState;
import io.hivesink.metastore.InMemoryMetastore;
import io.hivesink.table.DataFileName;

/** One partition's compaction, steps 2 to 8, on the in-memory metastore and a local filesystem. */
class CompactorTest {

    private static final String DAY = DayPartition.DAY;

    @TempDir
    java.nio.file.Path dir;
    private DayPartition day;
    private InMemoryMetastore metastore;
    private FileSystem fs;
    private StateTables states;
    private CompactionLog compactionLog;
    private Path current;
    private Path next;
    private final AtomicLong now = new AtomicLong(1_000_000);
    private Runnable onSleep = () -> { };
    private long holdMaxMs = 10_000;

    @BeforeEach
    void setUp() throws IOException {
        use(new DayPartition(new InMemoryMetastore(), dir));
    }

    /** The day's partition where metastore locks fence the task states (Hive 3.1), in a directory of its own. */
    private void underLocks() throws IOException {
        use(new DayPartition(new InMemoryMetastore(), java.nio.file.Files.createTempDirectory(dir, "locks"),
                Fencing.LOCKS));
        holdMaxMs = 120_000; // longer than the stale bound (60 s), as the defaults are (10 min against 5)
    }

    private void use(DayPartition day) {
        this.day = day;
        metastore = day.metastore;
        fs = day.fs;
        states = day.states;
        compactionLog = day.compactionLog;
        current = day.current;
        next = day.next;
    }

    private void landed(String batch, long from, long time) throws IOException {
        day.landed(batch, from, time);
    }

    private Compactor compactor() {
        return new Compactor(metastore, "db", fs, day.holds, compactionLog, now::get, ms -> {
            now.addAndGet(ms);
            onSleep.run();
        }, holdMaxMs, io.hivesink.commit.FaultInjector.NONE);
    }

    private Compactor.Target target() {
        return day.target();
    }

    private String location() {
        return day.location();
    }

    private List<Long> ids(Path directory) throws IOException {
        return day.ids(directory);
    }

    private static List<Long> range(long from, long to) {
        return DayPartition.range(from, to);
    }

    /** Task 1's batch in flight lands: its file moved into the current directory, its intent gone. */
    private void batchLands() {
        try {
            landed("conn-t1-b-5", 50, 9_000);
            StateTables.Stored task1 = states.read(1);
            states.write(task1, task1.state().withIntent(null));
            onSleep = () -> { };
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Task 1 has a batch in flight whose manifest moves a file into the current directory. */
    private TaskState.Intent batchInFlight() throws IOException {
        Path manifest = new Path(dir.toUri() + "/s/conn-t1-b-5/_manifest.avro");
        Path staged = new Path(dir.toUri() + "/s/conn-t1-b-5/part-conn-t1-b-5-00001.avro");
        new Manifest("conn-t1-b-5", List.of(new Manifest.StagedFile("orders", List.of("2026-11-29"), staged,
                new Path(current, "part-conn-t1-b-5-00001.avro"))),
                new Manifest.StagedFile("hive_sink_ledger", List.of("conn-t1-b-5"), staged, staged),
                Map.of(new TopicPartition("orders", 1), 50L)).write(fs, manifest);
        TaskState.Intent intent = new TaskState.Intent("conn-t1-b-5", manifest.toString());
        StateTables.Stored task1 = states.read(1);
        states.write(task1, task1.state().withIntent(intent));
        return intent;
    }

    @Test
    void swapsThePartitionToTheMergedGenerationAndReleasesItsHolds() throws Exception {
        fs.create(new Path(current, "_SUCCESS")).close();
        assertEquals(Compactor.Ended.SWAPPED, compactor().compact(target()));
        assertTrue(fs.exists(new Path(next, "_SUCCESS")), "the done marker's file stays for schedulers");

        assertEquals(next.toString(), location());
        assertEquals(range(10, 50), ids(next));
        assertEquals(1, fs.listStatus(next, f -> !f.getName().startsWith("_")).length, "one merged file");
        assertEquals(range(10, 50), ids(current), "the current generation stays, for queries under way");
        assertEquals(Optional.of(CompactionLog.Outcome.FINISHED), compactionLog.outcome("compact-c-1"));
        for (int task = 0; task < 2; task++) {
            assertEquals(List.of(new TaskState.Hold("orders", DAY, "compact-c-1", next.toString(), now.get())),
                    states.read(task).state().holds(), "task " + task);
        }
    }

    @Test
    void waitsForABatchOnItsWayAndTakesItsFileIn() throws Exception {
        batchInFlight();
        onSleep = this::batchLands;
        assertEquals(Compactor.Ended.SWAPPED, compactor().compact(target()));
        assertEquals(range(10, 60), ids(next), "the late batch's records, once");
        assertTrue(fs.exists(new Path(next, "part-conn-t1-b-5-00001.avro")), "under its own name");
    }

    @Test
    void aBatchThatDoesNotLandInTimeUndoesTheCompaction() throws Exception {
        batchInFlight();
        assertEquals(Compactor.Ended.UNDONE, compactor().compact(target()));
        assertEquals(current.toString(), location());
        assertFalse(fs.exists(next));
        assertEquals(Optional.of(CompactionLog.Outcome.UNDONE), compactionLog.outcome("compact-c-1"));
        for (int task = 0; task < 2; task++) {
            assertEquals(List.of(), states.read(task).state().holds(), "task " + task);
        }
    }

    @Test
    void aPartitionMovedOrDroppedUnderTheCompactionIsLeftAsItIsAndItsHoldsGo() throws Exception {
        Compactor compactor = compactor();
        // moved by someone else once held: this listing is not its files
        Partition partition = metastore.getPartition("db", "orders", List.of("2026-11-29")).orElseThrow();
        metastore.beforeConditionalWrite = stored -> {
            if (stored.getTableName().endsWith("_1")) {
                Partition elsewhere = new Partition(partition);
                elsewhere.getSd().setLocation(dir.toUri() + "/elsewhere");
                metastore.alterPartitions("db", "orders", List.of(elsewhere));
            }
        };
        assertEquals(Compactor.Ended.BUSY, compactor.compact(target()));
        assertFalse(fs.exists(next));
        assertEquals(List.of(), states.read(0).state().holds());
        assertEquals(List.of(), states.read(1).state().holds());

        // dropped after its decision: a finder's finish gives it up and frees the batches the holds stopped
        metastore.beforeConditionalWrite = stored -> { };
        metastore.partitions.get("db.orders").clear();
        new StateHolds(states).hold(new TaskState.Hold("orders", DAY, "compact-c-2", null));
        assertFalse(compactor.finish("orders", DAY, "compact-c-2", current, next));
        assertEquals(List.of(), states.read(0).state().holds());
        assertEquals(List.of(), states.read(1).state().holds());
    }

    @Test
    void aCompactionAFinderUndidFirstLeavesNothing() throws Exception {
        compactionLog.undo("compact-c-1");
        assertEquals(Compactor.Ended.UNDONE, compactor().compact(target()));
        assertEquals(current.toString(), location());
        assertFalse(fs.exists(next));
        assertEquals(List.of(), states.read(0).state().holds());
    }

    private StuckHolds finder() {
        return new StuckHolds(new StateHolds(states), 0, compactionLog, compactor(), day.tables::existing, fs, 10_000,
                now::get, "conn-t0-new-run");
    }

    @Test
    void aHoldItsCompactorLeftUndecidedIsUndoneByAFinderOnceStuck() throws Exception {
        target().merge().run(current, next, "compact-c-1"); // merged, then held, then the compactor died
        new StateHolds(states).hold(new TaskState.Hold("orders", DAY, "compact-c-1", null, now.get()));
        now.addAndGet(19_000);
        assertEquals(0, finder().find(java.util.Set.of()), "not stuck before twice compaction.hold.max.ms");
        now.addAndGet(1_000);
        assertEquals(0, finder().find(java.util.Set.of("compact-c-1")), "not while it runs here");
        assertEquals(1, finder().find(java.util.Set.of()));
        assertEquals(Optional.of(CompactionLog.Outcome.UNDONE), compactionLog.outcome("compact-c-1"));
        assertFalse(fs.exists(next), "its merged files go");
        assertEquals(current.toString(), location());
        for (int task = 0; task < 2; task++) {
            assertEquals(List.of(), states.read(task).state().holds(), "task " + task + ": batches land again");
        }
        assertEquals(Compactor.Ended.UNDONE, compactor().compact(target()), "its compactor, back, is refused");
        assertEquals(current.toString(), location());
    }

    @Test
    void aCompactionDecidedButNotSwappedIsFinishedByAFinder() throws Exception {
        MergeStep.Result merged = target().merge().run(current, next, "compact-c-1");
        new StateHolds(states).hold(new TaskState.Hold("orders", DAY, "compact-c-1", null, now.get()));
        compactionLog.finish("compact-c-1", List.of(new CompactionLog.Row("conn", 0, "orders", DAY,
                current.toString(), next.toString(), List.of(), List.of(), List.of(), 40, 0, 0, now.get())));
        assertEquals(1, merged.merged().size());
        now.addAndGet(30_000);
        assertEquals(1, finder().find(java.util.Set.of()));
        assertEquals(next.toString(), location(), "swapped as its compactor would have");
        assertEquals(range(10, 50), ids(next));
        for (int task = 0; task < 2; task++) {
            assertTrue(states.read(task).state().holds().get(0).released(), "task " + task);
        }
        assertEquals(0, finder().find(java.util.Set.of()), "a released hold is not stuck");
    }

    @Test
    void theOldGenerationIsRemovedAfterTheRetentionAndAPartitionFoundThereIsPutBack() throws Exception {
        assertEquals(Compactor.Ended.SWAPPED, compactor().compact(target()));
        Retirement retirement = new Retirement(metastore, "db", fs, compactionLog, 3_600_000, now::get);
        assertEquals(0, retirement.sweep().removed(), "queries under way still read it");
        assertTrue(fs.exists(current));
        // a write of the partition read before the swap put the old location back
        Partition back = metastore.getPartition("db", "orders", List.of("2026-11-29")).orElseThrow().deepCopy();
        back.getSd().setLocation(current.toString());
        metastore.alterPartitions("db", "orders", List.of(back));
        now.addAndGet(3_600_000);
        assertEquals(1, retirement.sweep().removed());
        assertFalse(fs.exists(current));
        assertEquals(next.toString(), location(), "put back at the merged files before the old ones went");
        assertEquals(range(10, 50), ids(next));
        assertEquals(java.util.Map.of(), compactionLog.retiring(), "nothing left to retire");
    }

    @Test
    void aHoldOfAnEarlierRunOfTheTaskIsStuckAtOnce() throws Exception {
        String earlier = CompactedBatches.id("conn-t0-old-run", 1);
        new StateHolds(states).hold(new TaskState.Hold("orders", DAY, earlier, null, now.get()));
        new StateHolds(states).hold(new TaskState.Hold("orders", "day=2026-11-30", CompactedBatches.id(
                "conn-t1-old-run", 1), null, now.get()));
        assertEquals(1, finder().find(java.util.Set.of()), "its own earlier run's, not task 1's, which may be live");
        assertEquals(Optional.of(CompactionLog.Outcome.UNDONE), compactionLog.outcome(earlier));
        assertEquals(null, states.read(1).state().holdOn("orders", DAY), "batches land in the day again");
    }

    @Test
    void filesOfSomeoneElseThatComeInDuringTheCompactionUndoIt() throws Exception {
        batchInFlight();
        onSleep = () -> { // a Hive INSERT writes into the partition, then the batch lands
            try {
                fs.create(new Path(current, "000000_0")).close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            batchLands();
        };
        assertEquals(Compactor.Ended.UNDONE, compactor().compact(target()));
        assertEquals(current.toString(), location(), "its rows stay where readers find them");
        assertFalse(fs.exists(next));
    }

    @Test
    void aShortRetentionKeepsTheNoteOfACompactionNotDecidedYet() throws Exception {
        compactionLog.retireLater("compact-c-1", now.get());
        Retirement retirement = new Retirement(metastore, "db", fs, compactionLog, 0, now::get);
        assertEquals(0, retirement.sweep().removed());
        assertEquals(java.util.Set.of("compact-c-1"), compactionLog.retiring().keySet(), "its rows may still come");
        compactionLog.finish("compact-c-1", List.of(new CompactionLog.Row("conn", 0, "orders", DAY,
                current.toString(), next.toString(), List.of(), List.of(), List.of(), 40, 0, 0, now.get())));
        fs.mkdirs(next);
        Partition moved = metastore.getPartition("db", "orders", List.of("2026-11-29")).orElseThrow().deepCopy();
        moved.getSd().setLocation(next.toString());
        metastore.alterPartitions("db", "orders", List.of(moved));
        assertEquals(1, retirement.sweep().removed());
        assertFalse(fs.exists(current), "retired once decided");
    }

    @Test
    void aMergedFilesRecordsAreCountedThroughTheBatchesItsCompactionReplaced() throws Exception {
        String id = CompactedBatches.id("conn-t0-run-x", 1);
        assertEquals(Optional.of(id), DataFileName.batchOf(DataFileName.of(id, 1, ".avro")),
                "the connector's own file, whose id the complete-batches query finds in the log");
        compactionLog.finish(id, List.of(new CompactionLog.Row("conn", 0, "orders", DAY, current.toString(),
                next.toString(), List.of(), List.of("conn-t0-a-1", "conn-t0-a-2"), List.of(), 20, 0, 0, now.get())));
        List<java.util.Set<String>> asked = new ArrayList<>();
        CompactedBatches counted = new CompactedBatches((table, partition, batches) -> {
            asked.add(batches);
            return new io.hivesink.commit.LedgerCounts.Counts(batches.size(), 0);
        }, compactionLog);
        counted.in("orders", DAY, java.util.Set.of(id, "conn-t0-a-3"));
        assertEquals(java.util.Set.of("conn-t0-a-1", "conn-t0-a-2", "conn-t0-a-3"), asked.get(0));
        counted.in("orders", DAY, java.util.Set.of(CompactedBatches.id("conn-t0-run-x", 2)));
        assertEquals(java.util.Set.of(CompactedBatches.id("conn-t0-run-x", 2)), asked.get(1),
                "one the log does not have is asked of the ledger as it is: its count is unknown");
    }

    @Test
    void underLocksAHoldALateWriteErasesUndoesTheCompaction() throws Exception {
        underLocks();
        day.lockBrokenAt(1, System.currentTimeMillis()); // task 1's writer stalled inside a locked write
        Map<String, String> asItRead = day.stateParameters(1);
        onSleep = () -> { // its write lands while the compactor waits out the bound: task 1's state without the hold
            day.lateWrite(1, asItRead);
            onSleep = () -> { };
        };
        long before = now.get();
        assertEquals(Compactor.Ended.UNDONE, compactor().compact(target()));

        assertTrue(now.get() - before >= 59_000, "waited out one stale bound: " + (now.get() - before));
        assertEquals(current.toString(), location(), "not swapped");
        assertFalse(fs.exists(next), "its merged files gone");
        assertEquals(Optional.of(CompactionLog.Outcome.UNDONE), compactionLog.outcome("compact-c-1"));
        for (int task = 0; task < 2; task++) {
            assertEquals(List.of(), states.read(task).state().holds(), "task " + task + ": batches land again");
        }
        assertEquals(range(10, 50), ids(current));
    }

    /** Under locks, with a task's lock broken {@code agoMs} before: how long the compaction waited to swap. */
    private long waitedToSwap(int task, long agoMs) throws Exception {
        underLocks();
        day.lockBrokenAt(task, System.currentTimeMillis() - agoMs);
        long before = now.get();
        assertEquals(Compactor.Ended.SWAPPED, compactor().compact(target()));
        assertEquals(next.toString(), location());
        return now.get() - before;
    }

    @Test
    void underLocksWaitsOutALockBrokenLatelyThenSwaps() throws Exception {
        long waited = waitedToSwap(0, 20_000);
        assertTrue(waited >= 39_000 && waited <= 40_000, "one stale bound after the break, 20 s ago: " + waited);
        assertEquals(range(10, 50), ids(next));
    }

    @Test
    void underLocksWithNoLockBrokenLatelyNothingWaits() throws Exception {
        assertEquals(0, waitedToSwap(1, 120_000), "no write sent under that lock can still land");
    }

    @Test
    void underLocksABatchFoundOnItsWayAtTheCheckIsWaitedForAndItsFileTakenIn() throws Exception {
        underLocks();
        day.lockBrokenAt(1, System.currentTimeMillis());
        onSleep = () -> { // an intent is in task 1's state beside the hold when it is read again
            try {
                batchInFlight();
                onSleep = this::batchLands; // then the batch lands
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        assertEquals(Compactor.Ended.SWAPPED, compactor().compact(target()));
        assertEquals(range(10, 60), ids(next), "the batch's records, once");
    }

    @Test
    void underLocksABoundLongerThanHoldMaxUndoesAtOnce() throws Exception {
        underLocks();
        day.lockBrokenAt(1, System.currentTimeMillis());
        long before = now.get();
        Compactor shortHold = new Compactor(metastore, "db", fs, day.holds, compactionLog, now::get, ms -> {
            now.addAndGet(ms);
            onSleep.run();
        }, 30_000, io.hivesink.commit.FaultInjector.NONE);
        assertEquals(Compactor.Ended.UNDONE, shortHold.compact(target()));
        assertEquals(before, now.get(), "undone without waiting");
        assertEquals(current.toString(), location());
        assertEquals(List.of(), states.read(1).state().holds());
    }

    @Test
    void underLocksALateWriteLandingBeforeTheLastHoldIsWrittenIsFoundToo() throws Exception {
        InMemoryMetastore[] metastore = {null};
        Map<String, String> asItRead = new java.util.HashMap<>();
        boolean[] landed = {false};
        metastore[0] = new InMemoryMetastore() {
            @Override
            public synchronized boolean alterTableUnderLock(long lockId, org.apache.hadoop.hive.metastore.api.Table
                    table, boolean cascade) {
                boolean altered = super.alterTableUnderLock(lockId, table, cascade);
                if (!asItRead.isEmpty() && !landed[0] && table.getTableName().endsWith("_1")) {
                    landed[0] = true; // task 1's holder's write lands just after the hold went in: no hold, no stamp
                    tables.get("hive_sink." + table.getTableName()).setParameters(new java.util.HashMap<>(asItRead));
                }
                return altered;
            }
        };
        use(new DayPartition(metastore[0], java.nio.file.Files.createTempDirectory(dir, "locks"), Fencing.LOCKS));
        holdMaxMs = 120_000;
        asItRead.putAll(day.stateParameters(1));
        day.lockBrokenAt(1, System.currentTimeMillis());

        assertEquals(Compactor.Ended.UNDONE, compactor().compact(target()));
        assertTrue(landed[0]);
        assertEquals(current.toString(), location(), "not swapped: task 1's writers never saw the hold");
        assertEquals(List.of(), states.read(0).state().holds());
    }

    @Test
    void generationsOfCompactionsStoppedBeforeTheirDecisionAreRemovedAndCanNeverFinish() throws Exception {
        Path stopped = new Path(current.getParent(), "conn-t1-earlier-k-3"); // merged, then its worker died
        Path undone = new Path(current.getParent(), "conn-t0-earlier-k-2"); // undone, its directory left
        fs.create(new Path(stopped, "part-conn-t1-earlier-k-3-00001.avro")).close();
        fs.create(new Path(undone, "part-conn-t0-earlier-k-2-00001.avro")).close();
        compactionLog.undo("conn-t0-earlier-k-2");

        assertEquals(Compactor.Ended.SWAPPED, compactor().compact(target()));

        assertFalse(fs.exists(stopped));
        assertFalse(fs.exists(undone));
        assertEquals(Optional.of(CompactionLog.Outcome.UNDONE), compactionLog.outcome("conn-t1-earlier-k-3"),
                "decided undone before its directory went: were it still running, its decision would be refused");
        assertTrue(fs.exists(current), "the generation readers may still be reading stays until its retirement");
        assertEquals(range(10, 50), ids(next));
    }

    @Test
    void aCompactionThatHoldsThePartitionFirstKeepsItsMergedFiles() throws Exception {
        Path other = new Path(current.getParent(), "conn-t1-x-k-7"); // task 1's compaction, between steps 3 and 6
        fs.create(new Path(other, "part-conn-t1-x-k-7-00001.avro")).close();
        StateTables.Stored task0 = states.read(0);
        states.write(task0, task0.state().withHold(new TaskState.Hold("orders", DAY, "conn-t1-x-k-7", null,
                now.get())));

        assertEquals(Compactor.Ended.BUSY, compactor().compact(target()));

        assertTrue(fs.exists(other), "the compaction that holds the partition goes on");
        assertEquals(Optional.empty(), compactionLog.outcome("conn-t1-x-k-7"));
        assertFalse(fs.exists(next));
    }
}
