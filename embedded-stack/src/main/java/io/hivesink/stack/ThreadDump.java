package io.hivesink.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the stacks of a connector's threads in this JVM (its task threads, their writer pools and commit lanes) when a
 * test gives up waiting on it: a task that commits nothing says where it stands only this way. The top frames go
 * into the test's failure message too, since a CI run keeps the failure messages and not the logs.
 */
public final class ThreadDump {

    private static final Logger log = LoggerFactory.getLogger(ThreadDump.class);
    /** Frames per thread in the one-line summary. */
    private static final int SUMMARY_FRAMES = 12;

    private ThreadDump() {
    }

    /**
     * Logs the threads whose names hold the connector's name; returns a one-line summary of them (how many, and each
     * one's name, state and top frames).
     */
    public static String logThreadsOf(String connectorName) {
        Map<String, String> dumps = new TreeMap<>();
        List<String> summaries = new ArrayList<>();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().contains(connectorName)) {
                StringBuilder text = new StringBuilder().append('"').append(thread.getName()).append("\" ")
                        .append(thread.getState());
                StringBuilder summary = new StringBuilder(text);
                for (int i = 0; i < stack.length; i++) {
                    text.append("\n\tat ").append(stack[i]);
                    if (i < SUMMARY_FRAMES) {
                        summary.append(i == 0 ? ": " : " < ").append(stack[i].getClassName()
                                .replaceAll("^.*\\.", "")).append('.').append(stack[i].getMethodName())
                                .append(':').append(stack[i].getLineNumber());
                    }
                }
                dumps.put(thread.getName() + '#' + System.identityHashCode(thread), text.toString());
                summaries.add(summary.toString());
            }
        });
        log.error("Threads of connector {} when the test stopped waiting on it:\n{}", connectorName,
                String.join("\n", dumps.values()));
        return summaries.size() + " threads: " + String.join(" | ", summaries);
    }

    /**
     * The last warnings and errors this JVM's stack log holds about the connector (its consumer's included: a
     * connection that fails shows there), one line each, for a failure message.
     */
    public static String lastWarningsOf(String connectorName, int most) {
        Path file = Path.of(System.getProperty("hivesink.log.file",
                "target/embedded-stack.log"));
        try (Stream<String> lines = Files.lines(file,
                StandardCharsets.UTF_8)) {
            Deque<String> last = new ArrayDeque<>();
            lines.filter(line -> line.contains(connectorName)
                    && (line.contains(" WARN ") || line.contains(" ERROR "))).forEach(line -> {
                        last.addLast(line.length() > 300 ? line.substring(0, 300) + "..." : line);
                        if (last.size() > most) {
                            last.removeFirst();
                        }
                    });
            return last.isEmpty() ? "no warnings about it in " + file : String.join(" | ", last);
        } catch (IOException | UncheckedIOException e) {
            return "its log " + file + " could not be read: " + e;
        }
    }
}
