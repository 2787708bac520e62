package io.hivesink.hivechild;

import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the Hive child mains share: argument parsing, logging set-up and the stdout protocol.
 *
 * <p>Protocol: every line the parent must read starts with {@link ChildProtocol#PREFIX}; anything else on stdout is
 * stray output (a library printing to the console) and the parent only logs it. After {@link #takeStdout()} the JVM's
 * {@code System.out} goes to {@code System.err}, which the parent sends to a file, so only this class writes protocol
 * lines to the real stdout. Fields within a line are separated by a tab and escaped with {@link ChildProtocol#escape}:
 * backslash, tab, line feed and carriage return become {@code \\ \t \n \r}, and a SQL NULL is the two characters
 * {@code \N}.
 */
final class ChildIo {

    static final String PREFIX = ChildProtocol.PREFIX;

    private static PrintStream protocol;

    private ChildIo() {
    }

    /** {@code key=value} arguments. */
    static Map<String, String> parseArgs(String[] args, String... required) {
        Map<String, String> out = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got: " + arg);
            }
            out.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        for (String key : required) {
            if (!out.containsKey(key) || out.get(key).isEmpty()) {
                throw new IllegalArgumentException("missing argument " + key + "=...");
            }
        }
        return out;
    }

    /**
     * Must run first in main, before any Hive, Hadoop or Log4j class loads: sends Log4j 2 (and Derby's log) to files
     * in the work dir and keeps the real stdout for protocol lines only.
     */
    static void setUp(Path workDir, String logName) throws IOException {
        Files.createDirectories(workDir);
        Path log = workDir.resolve(logName + ".log").toAbsolutePath();
        System.setProperty("hivechild.log.file", log.toString());
        System.setProperty("log4j2.configurationFile", "hive-child-log4j2.properties");
        System.setProperty("log4j.configurationFile", "hive-child-log4j2.properties");
        System.setProperty("derby.stream.error.file", workDir.resolve("derby.log").toAbsolutePath().toString());
        System.setProperty("derby.system.home", workDir.toAbsolutePath().toString());
        takeStdout();
    }

    private static synchronized void takeStdout() {
        if (protocol == null) {
            protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
            System.setOut(System.err);
        }
    }

    /** Writes one protocol line: the prefix, then the fields escaped and joined by tabs. */
    static synchronized void send(String type, List<String> fields) {
        takeStdout();
        StringBuilder line = new StringBuilder(PREFIX).append(type);
        for (String field : fields) {
            line.append('\t').append(ChildProtocol.escape(field));
        }
        protocol.print(line.append('\n'));
        protocol.flush();
    }

    static void send(String type, String... fields) {
        send(type, List.of(fields));
    }

    /** Writes a {@code FAILED} line and exits with status 1: Hive leaves non-daemon threads behind. */
    static void fail(Throwable t) {
        t.printStackTrace();
        try {
            send("FAILED", describe(t));
        } finally {
            Runtime.getRuntime().halt(1);
        }
    }

    static String describe(Throwable t) {
        StringBuilder out = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (out.length() > 0) {
                out.append("\ncaused by: ");
            }
            out.append(c.getClass().getName());
            if (c.getMessage() != null) {
                out.append(": ").append(c.getMessage());
            }
        }
        return out.toString();
    }

    /** Reads one line of stdin as UTF-8 (without its line feed), or null at end of input. */
    static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                return buf.toString(StandardCharsets.UTF_8);
            }
            buf.write(b);
        }
        return buf.size() == 0 ? null : buf.toString(StandardCharsets.UTF_8);
    }

    /** Blocks until stdin reaches end of input (the parent closed it or died), then exits. */
    static void exitOnStdinEof() {
        try {
            InputStream in = System.in;
            byte[] buf = new byte[256];
            while (in.read(buf) != -1) {
                // the metastore child takes no input: ignore it
            }
        } catch (IOException e) {
            // same as end of input
        }
        exit(0);
    }

    /** {@code System.exit}, but halts if shutdown hooks (Hive's, HDFS clients') have not finished in 15 s. */
    static void exit(int status) {
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(15_000);
            } catch (InterruptedException e) {
                return;
            }
            Runtime.getRuntime().halt(status);
        }, "hive-child-exit-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        System.exit(status);
    }

    /** Fails unless nothing listens on the port: a readiness probe must not mistake another server for ours. */
    static void requireFreePort(int port) {
        try (ServerSocket probe = new ServerSocket(port)) {
            probe.setReuseAddress(true);
        } catch (IOException e) {
            throw new IllegalStateException("port " + port + " is not free", e);
        }
    }

    static boolean portOpen(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("localhost", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
