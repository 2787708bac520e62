package io.hivesink.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.FaultPoint;
import io.hivesink.commit.Manifest;
import io.hivesink.commit.StateHolds;
import io.hivesink.commit.TaskState;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.PartitionMove;
import io.hivesink.table.HivePaths;

/**
 * The compaction protocol of one partition, steps 2 to 8 of {@code docs/compaction.md}, readable top to bottom:
 * merge, hold, wait, late arrivals, decide, swap, release. Retiring the old directory (step 9) is its caller's, a
 * retention later. Every step after the merge can be made again by whoever finds the compaction: its holds are its
 * intent, and its row in the compaction log decides it.
 */
public final class Compactor {

    private static final Logger log = LoggerFactory.getLogger(Compactor.class);
    /** How often step 4 looks again at the batches it waits for. */
    static final long WAIT_STEP_MS = 500;
    private static final String SUCCESS_FILE = "_SUCCESS";

    private final Metastore metastore;
    private final String database;
    private final FileSystem fs;
    private final StateHolds holds;
    private final CompactionLog compactionLog;
    private final LongSupplier clock;
    private final Sleeper sleeper;
    private final long holdMaxMs;
    private final FaultInjector faults;

    /** Waits between looks at the batches a hold waits for; tests step time. */
    public interface Sleeper {
        void sleep(long ms) throws InterruptedException;
    }

    public Compactor(Metastore metastore, String database, FileSystem fs, StateHolds holds,
            CompactionLog compactionLog, LongSupplier clock, Sleeper sleeper, long holdMaxMs, FaultInjector faults) {
        this.faults = faults;
        this.metastore = metastore;
        this.database = database;
        this.fs = fs;
        this.holds = holds;
        this.compactionLog = compactionLog;
        this.clock = clock;
        this.sleeper = sleeper;
        this.holdMaxMs = holdMaxMs;
    }

    /** A partition to compact, and what compacts it. */
    public record Target(String connector, int task, String table, String partition, Path current, Path next,
            String compaction, MergeStep merge) {
    }

    /** How a compaction ended. */
    public enum Ended {
        /** The partition's location is the new generation. */
        SWAPPED,
        /** Not worth it, or not the connector's alone: nothing written. */
        SKIPPED,
        /** Another compaction holds the partition: nothing left behind. */
        BUSY,
        /** Its batches in flight did not land in time, or a finder undid it: nothing left behind. */
        UNDONE
    }

    /** Compacts the partition, step by step; returns how it ended. */
    public Ended compact(Target target) throws IOException, InterruptedException {
        // 2. Merge: the next generation written beside the current one, invisible
        MergeStep.Result merged = target.merge().run(target.current(), target.next(), target.compaction());
        if (merged.skipped() != null) {
            log.debug("Partition {} of {} is not compacted: {}", target.partition(), target.table(),
                    merged.skipped());
            return Ended.SKIPPED;
        }
        faults.reached(FaultPoint.COMPACTION_MERGED);
        // 3. Hold: the partition in every task's state; batches already on their way are noted
        TaskState.Hold hold = new TaskState.Hold(target.table(), target.partition(), target.compaction(), null,
                clock.getAsLong());
        StateHolds.Held held = holds.hold(hold);
        if (!held.held()) {
            fs.delete(target.next(), true);
            return Ended.BUSY;
        }
        if (!HivePaths.sameDir(PartitionMove.locationOf(metastore, database, target.table(), target.partition()),
                target.current().toString())) {
            undo(target); // moved meanwhile (another compaction's finder, a user): this listing is not its files
            return Ended.BUSY;
        }
        clearAbandoned(target); // held: any other compaction of the partition not decided yet can no longer finish
        faults.reached(FaultPoint.COMPACTION_HELD);
        long until = clock.getAsLong() + holdMaxMs;
        List<Map.Entry<Integer, TaskState.Intent>> inFlight = new ArrayList<>(held.intents().entrySet());
        if (held.recheck()) { // where locks fence: a late write may erase a hold, so they are read again
            StateHolds.Held rechecked = waitOutLateWrites(target, hold, held, until);
            if (rechecked == null) {
                return giveUpBeforeDecision(target);
            }
            inFlight.addAll(rechecked.intents().entrySet());
        }
        // 4. Wait for those of them that land in the partition
        if (!waitForBatchesInFlight(target, inFlight, until)) {
            if (compactionLog.undo(target.compaction()) == CompactionLog.Outcome.UNDONE) {
                undo(target);
                return Ended.UNDONE;
            }
        }
        // 5. Late arrivals: what landed since the listing goes into the next generation as it is
        Set<String> listed = new HashSet<>();
        merged.snapshot().files().forEach(file -> listed.add(file.getPath().getName()));
        PartitionFiles now = PartitionFiles.list(fs, target.current());
        if (!now.foreign().isEmpty()) { // someone else's files came in since step 2: not the connector's to merge
            log.warn("Compaction {} of partition {} of {} is undone: files that are not hive-sink's came into {} "
                    + "meanwhile: {}", target.compaction(), target.partition(), target.table(), target.current(),
                    now.foreign());
            if (compactionLog.undo(target.compaction()) == CompactionLog.Outcome.UNDONE) {
                undo(target);
                return Ended.UNDONE;
            }
        }
        for (FileStatus file : now.files()) {
            if (!listed.contains(file.getPath().getName())) {
                target.merge().copy(file.getPath(), target.next());
            }
        }
        Path success = new Path(target.current(), SUCCESS_FILE);
        if (fs.exists(success)) { // the done marker's file, which schedulers wait on: it stays
            fs.create(new Path(target.next(), SUCCESS_FILE), true).close();
        }
        // 6. Decide: the compaction's rows in the log, by the one add that decides it; its retirement noted first,
        // so that no decided compaction leaves its old directory behind
        compactionLog.retireLater(target.compaction(), clock.getAsLong());
        if (compactionLog.finish(target.compaction(), List.of(row(target, merged))) != CompactionLog.Outcome.FINISHED) {
            undo(target);
            return Ended.UNDONE;
        }
        faults.reached(FaultPoint.COMPACTION_DECIDED);
        // 7. Swap, 8. release: from whoever finds the compaction decided, too
        return finish(target.table(), target.partition(), target.compaction(), target.current(), target.next())
                ? Ended.SWAPPED : Ended.UNDONE;
    }

    /**
     * Steps 7 and 8 of a compaction decided finished: the partition's location swapped from {@code current} (or
     * found swapped already), its holds released. A partition gone (dropped since) or moved elsewhere is left as it
     * is and its holds removed, so that no batch waits for them.
     *
     * @return whether the partition is at {@code next} now
     */
    public boolean finish(String table, String partition, String compaction, Path current, Path next) {
        PartitionMove.Result moved = PartitionMove.ifAt(metastore, database, table, partition, current.toString(),
                next.toString());
        if (!moved.atTarget()) {
            log.error("Compaction {} of partition {} of {}.{} is given up after its decision: the partition is {}; "
                    + "its merged files in {} are not used", compaction, partition, database, table,
                    moved.location() == null ? "gone" : "at " + moved.location() + ", not at " + current, next);
            holds.remove(table, partition, compaction);
            return false;
        }
        if (moved.found() == PartitionMove.Found.MOVED) {
            faults.reached(FaultPoint.COMPACTION_SWAPPED);
        }
        holds.release(new TaskState.Hold(table, partition, compaction, next.toString(), clock.getAsLong()));
        return true;
    }

    /**
     * A compaction stopped before its end (its task stops, or a step failed): undone now if it is not decided, so
     * that its partition is not held until a finder comes, else finished.
     */
    public void giveUp(Target target) throws IOException {
        if (compactionLog.undo(target.compaction()) == CompactionLog.Outcome.UNDONE) {
            undo(target);
        } else {
            finish(target.table(), target.partition(), target.compaction(), target.current(), target.next());
        }
    }

    /**
     * Removes the generations beside the partition's that compactions left before their decision (a compactor stopped
     * between its merge and its hold leaves its merged files, which no finder sees). Run once this compaction's holds
     * are in every state: another compaction of the partition that has not decided can then no longer hold it, so
     * undoing it costs nothing. Each is decided undone first, by the log's one add, so that one still running is
     * refused its decision and never finishes on a directory removed under it; one decided finished is left as it
     * is (a later compaction moved the partition on, and retirement removes it).
     */
    private void clearAbandoned(Target target) throws IOException {
        Path generations = target.next().getParent();
        if (!fs.exists(generations)) {
            return;
        }
        for (FileStatus generation : fs.listStatus(generations)) {
            String id = generation.getPath().getName();
            if (!generation.isDirectory() || !CompactedBatches.isId(id) || id.equals(target.compaction())
                    || HivePaths.sameDir(generation.getPath(), target.current())) {
                continue;
            }
            java.util.Optional<CompactionLog.Outcome> outcome = compactionLog.outcome(id);
            if ((outcome.isPresent() ? outcome.get() : compactionLog.undo(id)) == CompactionLog.Outcome.UNDONE) {
                fs.delete(generation.getPath(), true);
                log.info("Removed {}, the merged files of compaction {} of partition {} of {}, which stopped before "
                        + "its decision", generation.getPath(), id, target.partition(), target.table());
            }
        }
    }

    /** A compaction that cannot go on before step 6: undone, or finished if the log decided it so meanwhile. */
    private Ended giveUpBeforeDecision(Target target) throws IOException {
        if (compactionLog.undo(target.compaction()) == CompactionLog.Outcome.UNDONE) {
            undo(target);
            return Ended.UNDONE;
        }
        return finish(target.table(), target.partition(), target.compaction(), target.current(), target.next())
                ? Ended.SWAPPED : Ended.UNDONE;
    }

    /**
     * Waits until no write sent under a lock broken before the holds were written can still land, then reads the
     * holds again ({@link StateHolds#recheck}); within the time step 4 has too.
     *
     * @return what the check found, or null if a hold was erased or the wait would outlast compaction.hold.max.ms
     */
    private StateHolds.Held waitOutLateWrites(Target target, TaskState.Hold hold, StateHolds.Held held, long until)
            throws InterruptedException {
        if (clock.getAsLong() + held.recheckInMs() > until) {
            log.warn("Compaction {} of partition {} of {} is undone: a task state's lock was broken lately, and its "
                    + "holder's write may land for another {} ms, longer than compaction.hold.max.ms ({} ms)",
                    target.compaction(), target.partition(), target.table(), held.recheckInMs(), holdMaxMs);
            return null;
        }
        if (held.recheckInMs() > 0) {
            log.info("Compaction {} of partition {} of {} waits {} ms before it reads its holds again: a task "
                    + "state's lock was broken lately, and its holder's write may still land", target.compaction(),
                    target.partition(), target.table(), held.recheckInMs());
            sleeper.sleep(held.recheckInMs());
        }
        StateHolds.Held rechecked = holds.recheck(hold, held);
        if (!rechecked.held()) {
            log.warn("Compaction {} of partition {} of {} is undone: a late write of a task state whose lock was "
                    + "broken erased its hold there", target.compaction(), target.partition(), target.table());
            return null;
        }
        return rechecked;
    }

    private boolean waitForBatchesInFlight(Target target, List<Map.Entry<Integer, TaskState.Intent>> intents,
            long until) throws InterruptedException {
        List<Map.Entry<Integer, TaskState.Intent>> waiting = new ArrayList<>();
        for (Map.Entry<Integer, TaskState.Intent> intent : intents) {
            if (landsIn(intent.getValue(), target)) {
                waiting.add(intent);
            }
        }
        while (!waiting.isEmpty()) {
            waiting.removeIf(e -> !e.getValue().equals(holds.intentOf(e.getKey())));
            if (waiting.isEmpty()) {
                return true;
            }
            if (clock.getAsLong() >= until) {
                log.warn("Compaction {} of partition {} of {} is undone: batches {} that land in it were not "
                        + "committed within {} ms (compaction.hold.max.ms)", target.compaction(), target.partition(),
                        target.table(), waiting.stream().map(e -> e.getValue().batchId()).toList(), holdMaxMs);
                return false;
            }
            sleeper.sleep(WAIT_STEP_MS);
        }
        return true;
    }

    /** Whether a batch's manifest moves a file into the partition's current directory; gone, it has landed. */
    private boolean landsIn(TaskState.Intent intent, Target target) {
        Manifest manifest;
        try {
            manifest = Manifest.read(fs, new Path(intent.manifestPath()));
        } catch (java.io.FileNotFoundException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the manifest of batch " + intent.batchId(), e);
        }
        return manifest.files().stream().anyMatch(file -> file.table().equals(target.table())
                && HivePaths.sameDir(file.target().getParent(), target.current()));
    }

    private void undo(Target target) throws IOException {
        holds.remove(target.table(), target.partition(), target.compaction());
        fs.delete(target.next(), true);
    }

    private CompactionLog.Row row(Target target, MergeStep.Result merged) {
        List<String> files = new ArrayList<>();
        List<String> batches = new ArrayList<>();
        List<String> outputs = new ArrayList<>();
        long records = 0;
        long after = 0;
        for (MergeStep.MergedFile file : merged.merged()) {
            files.addAll(file.sources());
            file.sources().forEach(name -> batches.add(io.hivesink.table.DataFileName.batchOf(name).orElse(name)));
            outputs.add(file.path().getName());
            records += file.records();
            after += file.bytes();
        }
        Set<String> replaced = new HashSet<>(files);
        long before = merged.snapshot().files().stream().filter(f -> replaced.contains(f.getPath().getName()))
                .mapToLong(FileStatus::getLen).sum();
        return new CompactionLog.Row(target.connector(), target.task(), target.table(), target.partition(),
                target.current().toString(), target.next().toString(), files, batches, outputs, records, before,
                after, clock.getAsLong());
    }
}
