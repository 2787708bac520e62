package io.hivesink.commit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.fs.StagingArea;

/**
 * Removes the staged batches of the task's earlier instances that no durable intent owns: batches they abandoned
 * before their intent, which nobody will finish.
 *
 * <p>Why not at once, where states are fenced by locks: a write of an earlier instance that passed its lock's
 * heartbeat can still reach the metastore up to the stale bound later (the lock window, {@link StateLocks}). Its
 * intent would then land for a batch whose staging is gone, which cannot be finished and is given up (its records read
 * again). So a batch is removed only once it has been seen, its manifest present or absent as before, for the bound:
 * its manifest comes last, just before the intent is sent, so a batch seen that long after its manifest appeared has
 * no intent still under way inside the bound. This instance's own batches are removed at once unless one is being
 * committed: none of its writes is under way otherwise. Before it removes anything it reads the task's intent afresh:
 * a late one that landed keeps its batch. Where compare-and-set fences the states, an earlier instance's late intent
 * is refused by the metastore, and the bound is 0; this instance's own intent whose answer was lost can still land
 * after its dropped batch was removed, and is then given up as above ({@link BatchFinisher}).
 */
final class AbandonedStaging {

    private static final Logger log = LoggerFactory.getLogger(AbandonedStaging.class);

    private final StagingArea staging;
    private final String ownPrefix;
    private final Predicate<String> committing;
    private final LongSupplier nanos;
    /**
     * Batches seen and kept, young or found to be the durable intent's: whether each had its manifest, and since when
     * (monotonic) it was seen so. An intent's batch is looked at again a bound later: its intent may be given up.
     */
    private final Map<String, Seen> seen = new HashMap<>();
    /** Whether a batch of this instance was given up since the last sweep: its staging may be left. */
    private boolean ownGivenUp;

    /**
     * @param instance this task instance: its batch ids start with it
     * @param committing whether a batch of this instance is being committed now (its staging is in use)
     */
    AbandonedStaging(StagingArea staging, String instance, Predicate<String> committing, LongSupplier nanos) {
        this.staging = staging;
        this.committing = committing;
        this.ownPrefix = instance + "-";
        this.nanos = nanos;
    }

    /** Whether batches seen young, or given up by this instance, are still waiting to be removed. */
    synchronized boolean pending() {
        return ownGivenUp || !seen.isEmpty();
    }

    /** This instance gave up a batch (dropped it uncommitted): the next sweep removes its staging, if any is left. */
    synchronized void givenUp() {
        ownGivenUp = true;
    }

    /**
     * Removes the abandoned batches that are old enough, and remembers the others.
     *
     * @param intent the batch of the task's durable intent, if any, read afresh: asked for only when a batch is due
     * @param boundMs how long a late write can take to land (0: none can)
     * @return the batches removed
     */
    synchronized int sweep(Supplier<Set<String>> intent, long boundMs) throws IOException {
        Map<String, Boolean> listed = staging.stagedBatches();
        seen.keySet().retainAll(listed.keySet());
        long now = nanos.getAsLong();
        List<String> due = new ArrayList<>();
        for (Map.Entry<String, Boolean> batch : listed.entrySet()) {
            String id = batch.getKey();
            if (id.startsWith(ownPrefix)) {
                if (!committing.test(id)) {
                    due.add(id); // this instance's, given up: no write of it is under way
                }
                continue;
            }
            Seen before = seen.get(id);
            if (boundMs == 0 || (before != null && before.manifest() == batch.getValue()
                    && now - before.sinceNanos() >= boundMs * 1_000_000)) {
                due.add(id);
            } else if (before == null || before.manifest() != batch.getValue()) {
                seen.put(id, new Seen(batch.getValue(), now));
                log.info("Keeping abandoned staged batch {} ({}) for the stale lock bound, {} ms, before removing it: "
                        + "a late intent of it may still land", id, batch.getValue() ? "staged whole"
                                : "no manifest yet", boundMs);
            }
        }
        if (due.isEmpty()) {
            ownGivenUp = false;
            return 0;
        }
        Set<String> keep = intent.get(); // a failure here leaves the sweep due
        ownGivenUp = false;
        int removed = 0;
        for (String id : due) {
            if (keep.contains(id)) {
                // rolled forward by whoever finishes it, which removes its staging; looked at again a bound later
                seen.remove(id);
                if (boundMs > 0 && !id.startsWith(ownPrefix)) {
                    seen.put(id, new Seen(listed.get(id), now));
                }
                continue;
            }
            try {
                staging.discard(id);
                seen.remove(id);
                removed++;
            } catch (IOException e) {
                ownGivenUp |= id.startsWith(ownPrefix);
                log.warn("Could not remove abandoned staged batch {}; tried again later: {}", id, e.getMessage());
            }
        }
        return removed;
    }

    private record Seen(boolean manifest, long sinceNanos) {
    }
}
