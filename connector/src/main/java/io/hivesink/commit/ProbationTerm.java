package io.hivesink.commit;

/**
 * How long a claimed partition waits before its claim is checked again ({@link ExactlyOnceCommitter#recheck}), and
 * why. Where locks fence the states (Hive 3.1), a lock is broken when its holder shows no sign of life for the stale
 * bound, but a write the holder sent before may still reach the metastore's database after that (the metastore's own
 * retries, a slow network, a failover), and put back the state it read: the partitions it owned, an intent for a
 * batch that holds them. A claim that takes partitions from a state whose lock was broken less than a bound ago, or
 * whose own lock was, would then stand beside an owner that came back, and records read from its committed offsets
 * would land twice once that owner's batch is rolled forward. So such partitions take no record until one bound after
 * the break: by then a write still under way has landed (the claim is made again, and finds it) or no longer can,
 * short of one later than about two bounds after its holder's last heartbeat.
 *
 * @param msLeft how long from the claim until the check
 */
public record ProbationTerm(long msLeft) {

    /**
     * How long from {@code now} a write sent under a lock broken at {@code brokenAt} may still land: at most one
     * bound after the break, 0 if it was never broken or more than a bound ago (a break in the future counts as
     * now).
     */
    static long msLeft(long brokenAt, long boundMs, long now) {
        return brokenAt < 0 || boundMs <= 0 ? 0 : Math.max(0, Math.min(boundMs, brokenAt + boundMs - now));
    }

    /** The longer of two terms for the same partition. */
    static ProbationTerm longer(ProbationTerm a, ProbationTerm b) {
        return a.msLeft >= b.msLeft ? a : b;
    }
}
