package io.hivesink.stack.child;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Freezes a child process (SIGSTOP) and thaws it (SIGCONT): frozen, it runs nothing and answers nothing, yet its
 * sockets stay open and the kernel still accepts connections to its ports, as with a JVM in a long pause or a host
 * that stopped scheduling it. What a crash (SIGKILL) cannot show: the process comes back, mid-call, believing no time
 * has passed.
 */
public final class Freeze {

    private Freeze() {
    }

    /** Stops {@code pid} where it stands. */
    public static void stop(long pid) {
        signal(pid, "-STOP");
    }

    /** Lets {@code pid} run on. */
    public static void resume(long pid) {
        signal(pid, "-CONT");
    }

    private static void signal(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + pid + " failed: "
                        + new String(kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new IllegalStateException("kill " + signal + " " + pid + " could not run", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted sending " + signal + " to " + pid, e);
        }
    }
}
