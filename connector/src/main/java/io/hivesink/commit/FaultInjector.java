package io.hivesink.commit;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash tests stop the task at a step of the commit protocol. In production nothing is set and {@link #NONE} does
 * nothing. A worker started with the environment variable {@code HIVESINK_FAULT=<point>[:<n>][:stall=<ms>]} acts
 * the n-th time (default: the first) a commit in its JVM reaches that point:
 * <ul>
 * <li>by default it halts the JVM, without shutdown hooks: a crash as real as a power cut, as far as the files and
 * the metastore can tell ({@code INTENT_DURABLE:2});
 * <li>with {@code stall=<ms>} the committing thread sleeps that long, long enough for Connect to give its
 * partitions to another task: the task comes back as a zombie ({@code ALL_STAGED:1:stall=30000}).
 * </ul>
 */
@FunctionalInterface
public interface FaultInjector {

    String ENVIRONMENT = "HIVESINK_FAULT";
    int HALT_STATUS = 86;

    FaultInjector NONE = point -> { };

    void reached(FaultPoint point);

    /** The injector of this JVM: one count for all its tasks, so a worker halts or stalls once, not per task. */
    static FaultInjector fromEnvironment() {
        return FromEnvironment.INSTANCE;
    }

    static FaultInjector parse(String spec) {
        String[] parts = spec.split(":", -1);
        FaultPoint target = FaultPoint.valueOf(parts[0].toUpperCase(Locale.ROOT));
        int nth = 1;
        long stallMs = -1;
        for (int i = 1; i < parts.length; i++) {
            if (parts[i].startsWith("stall=")) {
                stallMs = Long.parseLong(parts[i].substring("stall=".length()));
            } else {
                nth = Integer.parseInt(parts[i]);
            }
        }
        Logger log = LoggerFactory.getLogger(FaultInjector.class);
        log.warn("Fault injection armed: the {} time a commit reaches {}, this JVM {}", nth, target,
                stallMs < 0 ? "halts" : "stalls the committing task for " + stallMs + " ms");
        AtomicInteger seen = new AtomicInteger();
        int n = nth;
        long stall = stallMs;
        return point -> {
            if (point != target || seen.incrementAndGet() != n) {
                return;
            }
            if (stall < 0) {
                log.warn("Fault injection: halting the JVM at {}", point);
                Runtime.getRuntime().halt(HALT_STATUS);
            }
            log.warn("Fault injection: stalling at {} for {} ms", point, stall);
            try {
                Thread.sleep(stall);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            log.warn("Fault injection: resuming after the stall at {}", point);
        };
    }

    /** Reads the environment once per JVM, when a task first asks. */
    final class FromEnvironment {
        static final FaultInjector INSTANCE = create();

        private FromEnvironment() {
        }

        private static FaultInjector create() {
            String spec = System.getenv(ENVIRONMENT);
            return spec == null || spec.isBlank() ? NONE : parse(spec.trim());
        }
    }
}
