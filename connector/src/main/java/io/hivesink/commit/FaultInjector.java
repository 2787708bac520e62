package io.hivesink.commit;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash tests kill the task at a step of the commit protocol. In production nothing is set and {@link #NONE} does
 * nothing. A worker started with the environment variable {@code HIVESINK_FAULT=<point>[:<n>]} (for example
 * {@code INTENT_DURABLE:2}) halts its JVM, without shutdown hooks, the n-th time (default: the first) a commit
 * reaches that point: a crash as real as a power cut, as far as the files and the metastore can tell.
 */
@FunctionalInterface
public interface FaultInjector {

    String ENVIRONMENT = "HIVESINK_FAULT";

    FaultInjector NONE = point -> { };

    void reached(FaultPoint point);

    static FaultInjector fromEnvironment() {
        String spec = System.getenv(ENVIRONMENT);
        if (spec == null || spec.isBlank()) {
            return NONE;
        }
        String[] parts = spec.trim().split(":");
        FaultPoint target = FaultPoint.valueOf(parts[0].toUpperCase(Locale.ROOT));
        int nth = parts.length > 1 ? Integer.parseInt(parts[1]) : 1;
        AtomicInteger seen = new AtomicInteger();
        Logger log = LoggerFactory.getLogger(FaultInjector.class);
        log.warn("Fault injection armed: this JVM halts the {} time a commit reaches {}", nth, target);
        return point -> {
            if (point == target && seen.incrementAndGet() == nth) {
                log.warn("Fault injection: halting the JVM at {}", point);
                Runtime.getRuntime().halt(86);
            }
        };
    }
}
