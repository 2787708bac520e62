package io.hivesink.hivechild;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the Hive child mains share: argument parsing, logging set-up and the stdout protocol.
 *
 * <p>Protocol: every line the parent must read starts with {@link #PREFIX}; anything else on stdout is stray output
 * (a library printing to the console) and the parent only logs it. After {@link #takeStdout()} the JVM's
 * {@code System.out} goes to {@code System.err}, which the parent sends to a file, so only this class writes protocol
 * lines to the real stdout. Fields within a line are separated by a tab and escaped with {@link #escape}: backslash,
 * tab, line feed and carriage return become {@code \\ \t \n \r}, and a SQL NULL is the two characters {@code \N}.
 */
final class ChildIo {

    static final String PREFIX = "@@hive-child@@ ";
    static final String NULL = "\\N";

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
            line.append('\t').append(escape(field));
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

    static String escape(String value) {
        if (value == null) {
            return NULL;
        }
        StringBuilder out = new StringBuilder(value.length() + 8);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    static String unescape(String field) {
        if (NULL.equals(field)) {
            return null;
        }
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 1 < field.length()) {
                char n = field.charAt(++i);
                switch (n) {
                    case 't' -> out.append('\t');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    default -> out.append(n);
                }
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Reads one line of stdin as UTF-8 (without its line feed), or null at end of input. */
    static String readLine(InputStream in) throws IOException {
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                return buf.toString(StandardCharsets.UTF_8);
            }
            buf.write(b);
        }
        return buf.size() == 0 ? null : buf.toString(StandardCharsets.UTF_8);
    }

    static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        for (String f : line.split("\t", -1)) {
            out.add(unescape(f));
        }
        return out;
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
}
