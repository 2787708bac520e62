package io.hivesink.stack;

import java.util.Map;
import java.util.TreeMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the stacks of a connector's threads in this JVM (its task threads, their writer pools and commit lanes) when a
 * test gives up waiting on it: a task that commits nothing says where it stands only this way.
 */
public final class ThreadDump {

    private static final Logger log = LoggerFactory.getLogger(ThreadDump.class);

    private ThreadDump() {
    }

    /** Logs the threads whose names hold the connector's name; returns how many it logged. */
    public static int logThreadsOf(String connectorName) {
        Map<String, String> dumps = new TreeMap<>();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().contains(connectorName)) {
                StringBuilder text = new StringBuilder().append('"').append(thread.getName()).append("\" ")
                        .append(thread.getState());
                for (StackTraceElement frame : stack) {
                    text.append("\n\tat ").append(frame);
                }
                dumps.put(thread.getName() + '#' + System.identityHashCode(thread), text.toString());
            }
        });
        log.error("Threads of connector {} when the test stopped waiting on it:\n{}", connectorName,
                String.join("\n", dumps.values()));
        return dumps.size();
    }
}
