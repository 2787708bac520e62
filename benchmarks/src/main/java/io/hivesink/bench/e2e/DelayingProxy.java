package io.hivesink.bench.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy in front of the metastore that holds every byte a client sends for a fixed time before passing it on,
 * and passes answers back at once: each call then takes that much longer, as against a metastore farther away or
 * busier than the one on this machine, while the metastore itself stays the real one. Bytes keep their order and
 * throughput is not limited, only delayed.
 */
final class DelayingProxy implements AutoCloseable {

    private static final byte[] END = new byte[0];

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final long delayNanos;

    private DelayingProxy(URI target, long delayMs) throws IOException {
        this.target = new InetSocketAddress(target.getHost(), target.getPort());
        this.delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMs);
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon("delaying-proxy-accept", this::accept).start();
    }

    /** A proxy to the {@code thrift://host:port} URI, delaying what clients send by {@code delayMs}. */
    static DelayingProxy start(String thriftUri, long delayMs) throws IOException {
        return new DelayingProxy(URI.create(thriftUri), delayMs);
    }

    /** The URI clients use instead of the target's. */
    String uri() {
        return "thrift://" + listener.getInetAddress().getHostAddress() + ":" + listener.getLocalPort();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(target, 10_000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                BlockingQueue<Timed> held = new LinkedBlockingQueue<>();
                daemon("delaying-proxy-hold", () -> hold(client, server, held)).start();
                daemon("delaying-proxy-release", () -> release(held, client, server)).start();
                daemon("delaying-proxy-answer", () -> answer(server, client)).start();
            } catch (IOException e) {
                if (!listener.isClosed()) {
                    System.err.println("delaying proxy: " + e);
                }
            }
        }
    }

    /** Reads what the client sends and stamps it with the time it may go on. */
    private void hold(Socket client, Socket server, BlockingQueue<Timed> held) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = client.getInputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                held.add(new Timed(System.nanoTime() + delayNanos, Arrays.copyOf(buffer, n)));
            }
        } catch (IOException e) {
            closeQuietly(server);
        }
        held.add(new Timed(System.nanoTime() + delayNanos, END));
    }

    /** Passes the client's bytes on to the metastore once their time has come. */
    private static void release(BlockingQueue<Timed> held, Socket client, Socket server) {
        try (OutputStream out = server.getOutputStream()) {
            while (true) {
                Timed next = held.take();
                long wait = next.due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                if (next.bytes == END) {
                    server.shutdownOutput();
                    return;
                }
                out.write(next.bytes);
                out.flush();
            }
        } catch (IOException e) {
            closeQuietly(client);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Passes the metastore's answers back to the client as they come. */
    private static void answer(Socket server, Socket client) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = server.getInputStream(); OutputStream out = client.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // either side went away: both close
        } finally {
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    /** Bytes a client sent, and when they may go on. */
    private static final class Timed {

        final long due;
        final byte[] bytes;

        Timed(long due, byte[] bytes) {
            this.due = due;
            this.bytes = bytes;
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
