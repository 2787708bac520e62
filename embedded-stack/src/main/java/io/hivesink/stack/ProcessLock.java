package io.hivesink.stack;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A lock shared by every test JVM on the machine, on a file: the integration tests run two JVMs side by side, and
 * some things they share must not be made or used by both at once (a Python environment being installed, Spark's
 * Ivy cache while it fetches a Hive client). A file lock belongs to the JVM, not the thread, so threads of one JVM
 * queue on a plain lock first.
 */
public final class ProcessLock {

    private static final ConcurrentMap<Path, ReentrantLock> IN_THIS_JVM = new ConcurrentHashMap<>();

    private ProcessLock() {}

    /** Runs {@code work} holding the lock named by {@code file} (made if missing), and returns what it returns. */
    public static <T> T holding(Path file, Callable<T> work) throws Exception {
        Path lockFile = file.toAbsolutePath().normalize();
        ReentrantLock local = IN_THIS_JVM.computeIfAbsent(lockFile, f -> new ReentrantLock());
        local.lock();
        try {
            Files.createDirectories(lockFile.getParent());
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE)) {
                FileLock lock = channel.lock();
                try {
                    return work.call();
                } finally {
                    lock.release();
                }
            }
        } finally {
            local.unlock();
        }
    }
}
