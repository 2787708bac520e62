package io.hivesink.commit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Stores a list of lines in metastore parameters {@code prefix.0}, {@code prefix.1}, ..., each value kept under the
 * smallest column size of the metastore backends (4,000 characters: Oracle and older schemas; Derby allows
 * 32,672), so that a large assignment never fails on the backend after the metastore's own retries.
 */
final class ParameterLines {

    static final int MAX_VALUE_CHARS = 4000;

    private ParameterLines() {
    }

    static void put(Map<String, String> params, String prefix, List<String> lines) {
        params.keySet().removeIf(k -> k.startsWith(prefix + "."));
        StringBuilder value = new StringBuilder();
        int key = 0;
        for (String line : lines) {
            if (line.length() + 1 > MAX_VALUE_CHARS) {
                throw new IllegalArgumentException("A metastore parameter line is longer than " + MAX_VALUE_CHARS
                        + " characters: " + line.substring(0, 200) + "...");
            }
            if (value.length() + line.length() + 1 > MAX_VALUE_CHARS) {
                params.put(prefix + "." + key++, value.toString());
                value.setLength(0);
            }
            value.append(line).append('\n');
        }
        if (value.length() > 0) {
            params.put(prefix + "." + key, value.toString());
        }
    }

    static List<String> get(Map<String, String> params, String prefix) {
        List<String> lines = new ArrayList<>();
        for (int key = 0; ; key++) {
            String value = params.get(prefix + "." + key);
            if (value == null) {
                return lines;
            }
            for (String line : value.split("\n", -1)) {
                if (!line.isEmpty()) {
                    lines.add(line);
                }
            }
        }
    }
}
