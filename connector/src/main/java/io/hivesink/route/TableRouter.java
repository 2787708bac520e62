package io.hivesink.route;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Picks the Hive table of a record from its topic: an explicit mapping first, otherwise the topic name made
 * Hive-safe.
 */
public final class TableRouter {

    private static final int MAX_NAME_LENGTH = 128;

    private final Map<String, String> explicit;
    private final Map<String, String> resolved = new ConcurrentHashMap<>();

    public TableRouter(Map<String, String> topicToTable) {
        this.explicit = Map.copyOf(topicToTable);
    }

    public String tableFor(String topic) {
        return resolved.computeIfAbsent(topic, t -> explicit.getOrDefault(t, hiveSafeName(t)));
    }

    /**
     * Lower case, with every character other than a letter, digit or underscore replaced by an underscore, prefixed
     * with an underscore if it starts with a digit, and cut to Hive's 128 characters.
     */
    public static String hiveSafeName(String name) {
        StringBuilder out = new StringBuilder(name.length());
        for (char c : name.toLowerCase(Locale.ROOT).toCharArray()) {
            out.append((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? c : '_');
        }
        if (out.length() == 0 || Character.isDigit(out.charAt(0))) {
            out.insert(0, '_');
        }
        return out.length() > MAX_NAME_LENGTH ? out.substring(0, MAX_NAME_LENGTH) : out.toString();
    }
}
