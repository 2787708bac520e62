package io.hivesink.stack.child;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for the child processes to listen on (Connect workers, metastores, S3Proxy, Trino), picked here and bound
 * there seconds later. A port asked of the kernel (bound to port 0, then released) can be handed to a child of
 * another test JVM running beside this one in that time, and then one of the two fails to start or, worse, a
 * readiness check talks to the other's process. So where the test JVM knows its fork's number (the integration
 * tests set {@value #FORK_PROPERTY} to Maven's fork number, unique among the JVMs running at once), it hands out
 * ports from a range of its own below the kernel's ephemeral ports, in turn, skipping any that is bound; elsewhere
 * (the demo) it asks the kernel.
 */
public final class FreePorts {

    /** The system property holding the fork's number, 1 and up. */
    public static final String FORK_PROPERTY = "hivesink.fork";
    private static final int FIRST = 20_000;
    private static final int PER_FORK = 1_000;
    private static final AtomicInteger NEXT = new AtomicInteger();

    private FreePorts() {
    }

    /** A port no process listens on now, and that no other test JVM of this build hands out. */
    public static int next() {
        String fork = System.getProperty(FORK_PROPERTY, "");
        if (!fork.matches("[1-9][0-9]?")) {
            return fromKernel();
        }
        int base = FIRST + Integer.parseInt(fork) * PER_FORK;
        for (int tried = 0; tried < PER_FORK; tried++) {
            int port = base + Math.floorMod(NEXT.getAndIncrement(), PER_FORK);
            if (canBind(port)) {
                return port;
            }
        }
        throw new IllegalStateException("Every port from " + base + " to " + (base + PER_FORK - 1) + " is bound");
    }

    /** Whether no process listens on {@code port} now. */
    public static boolean canBind(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int fromKernel() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }
}
