package io.hivesink.commit;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.config.MetastoreConfig;
import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.UnsupportedMetastoreException;

/**
 * The stale bound of state locks: how long a lock ahead of a writer may show no sign of life before it is broken, and
 * so how long after its heartbeat a write may still land unseen (the lock window, {@link StateLocks}).
 *
 * <p>Why derived from the metastore: a metastore retries a call that met an error of its database, {@code
 * metastore.hmshandler.retry.attempts} times (10 on Hive 3.1) {@code metastore.hmshandler.retry.interval} apart (2 s),
 * so a write sent right after its heartbeat can commit that long later on a healthy network. Unset, the bound is
 * {@value #RETRY_BUDGETS} times that retry budget, read from the metastore when the task starts, from {@value
 * #FLOOR_MS} to {@value #CEILING_MS} ms; a bound set below the budget is kept, with a WARN that says what it risks.
 */
public final class LockBound {

    private static final Logger log = LoggerFactory.getLogger(LockBound.class);

    static final long FLOOR_MS = 60_000;
    /** A derived bound stops here: a lock left behind blocks the task's writes this long. */
    static final long CEILING_MS = 300_000;
    static final int RETRY_BUDGETS = 3;
    /** Hive's own defaults, for a metastore that does not hand its settings out. */
    static final int DEFAULT_ATTEMPTS = 10;
    static final long DEFAULT_INTERVAL_MS = 2_000;
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*([a-z]*)");

    private LockBound() {
    }

    /**
     * A bound settled.
     *
     * @param ms the bound to use
     * @param final_ false if it fell back to Hive's defaults because the metastore did not answer: read it again later
     */
    public record Settled(long ms, boolean final_) {
    }

    /**
     * The bound a task uses: as configured, else derived from the metastore's retry budget.
     *
     * @param configuredMs {@value MetastoreConfig#METASTORE_LOCK_STALE_MS} as set, 0 if unset
     * @return the bound to use
     */
    public static Settled settle(Metastore metastore, long configuredMs, TaskRun run) {
        long budgetMs;
        String from;
        boolean read = true;
        try {
            int attempts = setting(metastore, "hmshandler.retry.attempts").map(Integer::parseInt)
                    .orElse(DEFAULT_ATTEMPTS);
            long intervalMs = setting(metastore, "hmshandler.retry.interval").map(LockBound::durationMs)
                    .orElse(DEFAULT_INTERVAL_MS);
            budgetMs = Math.max(0, attempts) * intervalMs;
            from = attempts + " attempts " + intervalMs + " ms apart";
        } catch (IllegalArgumentException | UnsupportedMetastoreException e) {
            budgetMs = DEFAULT_ATTEMPTS * DEFAULT_INTERVAL_MS;
            from = "Hive's defaults, since the metastore's own could not be read (" + e.getMessage() + ")";
        } catch (RuntimeException e) {
            budgetMs = DEFAULT_ATTEMPTS * DEFAULT_INTERVAL_MS;
            from = "Hive's defaults until the next claim, since the metastore's own could not be read ("
                    + e.getMessage() + ")";
            read = false;
            if (configuredMs <= 0) {
                log.warn("Task {} of {}: the metastore's retry settings could not be read ({}); state locks are "
                        + "broken after Hive's defaults until the next claim of partitions reads them", run.task(),
                        run.connector(), e.getMessage());
            }
        }
        if (configuredMs > 0) {
            if (configuredMs <= budgetMs) {
                log.warn("Task {} of {}: {}={} ms is not above the metastore's own retry budget ({} ms: {}): a "
                        + "write of a task state that the metastore retries that long can land after its lock was "
                        + "broken, over another writer's. Leave it unset (at least {} ms), or set it above {} ms",
                        run.task(), run.connector(), MetastoreConfig.METASTORE_LOCK_STALE_MS, configuredMs, budgetMs,
                        from, FLOOR_MS, budgetMs);
            }
            return new Settled(configuredMs, true);
        }
        long bound = Math.min(CEILING_MS, Math.max(FLOOR_MS, RETRY_BUDGETS * budgetMs));
        log.info("Task {} of {}: state locks silent for {} ms are broken ({} times the metastore's retry budget of {} "
                + "ms, {}; from {} to {} ms)", run.task(), run.connector(), bound, RETRY_BUDGETS, budgetMs, from,
                FLOOR_MS, CEILING_MS);
        return new Settled(bound, read);
    }

    /** The setting under its 3.x name, else its 2.x name. */
    private static Optional<String> setting(Metastore metastore, String key) {
        Optional<String> value = metastore.configValue("metastore." + key);
        return value.isPresent() ? value : metastore.configValue("hive." + key);
    }

    /** A Hive duration ({@code 2000ms}, {@code 2s}, {@code 2sec}, {@code 1min}), milliseconds when bare. */
    static long durationMs(String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: " + text);
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "", "ms", "msec", "msecs", "millisecond", "milliseconds" -> n;
            case "us", "usec", "usecs", "microsecond", "microseconds" -> n / 1_000;
            case "ns", "nsec", "nsecs", "nanosecond", "nanoseconds" -> n / 1_000_000;
            case "s", "sec", "secs", "second", "seconds" -> n * 1_000;
            case "m", "min", "mins", "minute", "minutes" -> n * 60_000;
            case "h", "hour", "hours" -> n * 3_600_000;
            case "d", "day", "days" -> n * 86_400_000;
            default -> throw new IllegalArgumentException("not a duration: " + text);
        };
    }
}
