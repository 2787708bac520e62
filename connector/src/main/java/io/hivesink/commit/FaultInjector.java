package io.hivesink.commit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.connect.errors.RetriableException;
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
 * partitions to another task: the task comes back as a zombie ({@code ALL_STAGED:1:stall=30000});
 * <li>with {@code fail=<ms>} every commit that reaches the point fails there with a retriable error for that long from
 * the first failure on, as during an outage ({@code INTENT_DURABLE:1:fail=10000}).
 * </ul>
 * With {@code HIVESINK_FAULT_FILE=<path>} instead, the spec is read from that file, again whenever it changes, so that
 * one worker can meet several faults in turn (an empty file: none).
 */
@FunctionalInterface
public interface FaultInjector {

    String ENVIRONMENT = "HIVESINK_FAULT";
    int HALT_STATUS = 86;

    FaultInjector NONE = point -> { };

    void reached(FaultPoint point);

    String ENVIRONMENT_FILE = "HIVESINK_FAULT_FILE";

    /** The injector of this JVM: one count for all its tasks, so a worker halts or stalls once, not per task. */
    static FaultInjector fromEnvironment() {
        return FromEnvironment.INSTANCE;
    }

    static FaultInjector parse(String spec) {
        String[] parts = spec.split(":", -1);
        FaultPoint target = FaultPoint.valueOf(parts[0].toUpperCase(Locale.ROOT));
        int nth = 1;
        long stallMs = -1;
        long failMs = -1;
        for (int i = 1; i < parts.length; i++) {
            if (parts[i].startsWith("stall=")) {
                stallMs = Long.parseLong(parts[i].substring("stall=".length()));
            } else if (parts[i].startsWith("fail=")) {
                failMs = Long.parseLong(parts[i].substring("fail=".length()));
            } else {
                nth = Integer.parseInt(parts[i]);
            }
        }
        Logger log = LoggerFactory.getLogger(FaultInjector.class);
        log.warn("Fault injection armed: the {} time a commit reaches {}, this JVM {}", nth, target,
                failMs >= 0 ? "fails every commit there for " + failMs + " ms"
                        : stallMs < 0 ? "halts" : "stalls the committing task for " + stallMs + " ms");
        AtomicInteger seen = new AtomicInteger();
        int n = nth;
        long stall = stallMs;
        if (failMs >= 0) {
            return failing(target, n, failMs, log);
        }
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

    /** From the n-th time a commit reaches {@code target}, each one fails there for {@code failMs}. */
    private static FaultInjector failing(FaultPoint target, int n, long failMs, Logger log) {
        AtomicInteger seen = new AtomicInteger();
        AtomicLong failingSince = new AtomicLong(-1);
        return point -> {
            if (point != target || (failingSince.get() < 0 && seen.incrementAndGet() < n)) {
                return;
            }
            long now = System.nanoTime();
            if (failingSince.compareAndSet(-1, now)) {
                log.warn("Fault injection: failing at {}, every commit that reaches it, for {} ms", point, failMs);
            }
            if (now - failingSince.get() < failMs * 1_000_000) {
                throw new RetriableException("Fault injection: a retriable failure at " + point);
            }
        };
    }

    /** Reads the environment once per JVM, when a task first asks. */
    final class FromEnvironment {
        static final FaultInjector INSTANCE = create();

        private FromEnvironment() {
        }

        private static FaultInjector create() {
            String file = System.getenv(ENVIRONMENT_FILE);
            if (file != null && !file.isBlank()) {
                return new FromFile(Path.of(file.trim()));
            }
            String spec = System.getenv(ENVIRONMENT);
            return spec == null || spec.isBlank() ? NONE : parse(spec.trim());
        }
    }

    /** The spec in a file, read again whenever the file changes; each new spec counts from zero. */
    final class FromFile implements FaultInjector {
        private final Path file;
        private String spec = "";
        private FaultInjector current = NONE;

        FromFile(Path file) {
            this.file = file;
        }

        @Override
        public void reached(FaultPoint point) {
            current().reached(point);
        }

        private synchronized FaultInjector current() {
            String read;
            try {
                read = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8).trim() : "";
            } catch (IOException e) {
                return current; // being rewritten: the spec read before holds
            }
            if (!read.equals(spec)) {
                spec = read;
                current = read.isEmpty() ? NONE : parse(read);
            }
            return current;
        }
    }
}
