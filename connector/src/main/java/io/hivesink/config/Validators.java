package io.hivesink.config;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The connector's validators, in one place. Each names what is wrong with a value and what a right one looks like;
 * the description is what the generated reference shows as the valid values.
 */
final class Validators {

    /** What is wrong with a value, or null if nothing is. */
    @FunctionalInterface
    interface Check<T> {
        String problem(T value);
    }

    private static final Pattern HIVE_IDENTIFIER = HiveSinkConfig.HIVE_IDENTIFIER;

    private Validators() {
    }

    /** A validator of a text value (null read as empty, trimmed). */
    static ConfigDef.Validator text(String description, Check<String> check) {
        return ConfigDef.LambdaValidator.with((name, value) -> {
            String problem = check.problem(value == null ? "" : value.toString().trim());
            if (problem != null) {
                throw new ConfigException(name, value, problem);
            }
        }, () -> description);
    }

    /** A duration in milliseconds: 0 (off), or from {@code min} to {@code max}. */
    static ConfigDef.Validator offOrBetween(long min, long max) {
        return zeroOrBetween(min, max, "off");
    }

    /** A duration in milliseconds: 0 ({@code zeroMeans}), or from {@code min} to {@code max}. */
    static ConfigDef.Validator zeroOrBetween(long min, long max, String zeroMeans) {
        return ConfigDef.LambdaValidator.with((name, value) -> {
            long ms = ((Number) value).longValue();
            if (ms != 0 && (ms < min || ms > max)) {
                throw new ConfigException(name, value, "must be 0 (" + zeroMeans + ") or from " + min + " to " + max);
            }
        }, () -> "0, or [" + min + ",...," + max + "]");
    }

    /** A validator of a list value. */
    @SuppressWarnings("unchecked")
    static ConfigDef.Validator list(String description, Check<List<String>> check) {
        return ConfigDef.LambdaValidator.with((name, value) -> {
            String problem = check.problem(value == null ? List.of() : (List<String>) value);
            if (problem != null) {
                throw new ConfigException(name, value, problem);
            }
        }, () -> description);
    }

    /**
     * A validator of each entry of a list; an entry whose key (see {@code duplicateKey}) came before is a problem
     * too.
     *
     * @param duplicateKey what makes two entries the same, or null if they may repeat
     * @param duplicate    the problem of a repeated entry, from the entry
     */
    static ConfigDef.Validator entries(String description, Check<String> check, Function<String, String> duplicateKey,
            Function<String, String> duplicate) {
        return list(description, entries -> {
            Set<String> seen = new HashSet<>();
            for (String entry : entries) {
                String problem = check.problem(entry);
                if (problem != null) {
                    return problem;
                }
                if (duplicateKey != null && !seen.add(duplicateKey.apply(entry))) {
                    return duplicate.apply(entry);
                }
            }
            return null;
        });
    }

    /** A boolean; ConfigDef has parsed the text already, so this only names what a right value is. */
    static ConfigDef.Validator bool() {
        return ConfigDef.LambdaValidator.with((name, value) -> {
            if (!(value instanceof Boolean)) {
                throw new ConfigException(name, value, "Give true or false.");
            }
        }, () -> "true or false");
    }

    /** A text that {@code parse} can read; the problem is {@code problem} and what the parser said. */
    static ConfigDef.Validator parsedBy(String description, Function<String, ?> parse, String problem) {
        return text(description, text -> {
            try {
                Objects.requireNonNull(parse.apply(text), description);
                return null;
            } catch (IllegalArgumentException | java.time.DateTimeException e) {
                return problem + e.getMessage();
            }
        });
    }

    static ConfigDef.Validator fileSystemUrl() {
        return text("a URL with a scheme, e.g. hdfs://namenode:8020, or empty", text -> {
            if (text.isEmpty()) {
                return null;
            }
            try {
                return new java.net.URI(text).getScheme() == null
                        ? "A FileSystem URL needs a scheme, for example hdfs://namenode:8020 or file:///data."
                        : null;
            } catch (java.net.URISyntaxException e) {
                return "Not a valid URL: " + e.getMessage();
            }
        });
    }

    static ConfigDef.Validator absolutePath(boolean emptyAllowed) {
        return text(emptyAllowed ? "an absolute path, or empty" : "an absolute path",
                text -> (text.isEmpty() && emptyAllowed) || text.startsWith("/") ? null
                        : "Give an absolute path on the FileSystem of fs.url, for example /warehouse/hive-sink.");
    }

    static ConfigDef.Validator umask() {
        return text("three octal digits, as in 027, or empty", text -> text.isEmpty() || text.matches("0?[0-7]{3}")
                ? null
                : "A umask is three octal digits, each 0-7, as in 027 (group may read, others nothing) or 022.");
    }

    static ConfigDef.Validator metastoreUris() {
        return list("thrift://host:port[,thrift://host:port...]", uris -> {
            if (uris.isEmpty()) {
                return "Give at least one metastore URI, for example thrift://metastore:9083.";
            }
            for (String uri : uris) {
                if (!uri.matches("thrift://[^/:]+:\\d+/?")) {
                    return "'" + uri + "' is not a metastore URI; expected thrift://host:port, for example "
                            + "thrift://metastore:9083.";
                }
            }
            return null;
        });
    }

    static ConfigDef.Validator hiveIdentifier() {
        return text("a Hive identifier: [A-Za-z_][A-Za-z0-9_]*", text -> HIVE_IDENTIFIER.matcher(text).matches()
                ? null
                : "A Hive name holds letters, digits and underscores, starts with a letter or underscore and has at "
                        + "most 128 characters.");
    }

    static ConfigDef.Validator tableMap() {
        return entries("topic:table[,topic:table...]", entry -> {
            int colon = entry.lastIndexOf(':');
            if (colon <= 0 || colon == entry.length() - 1) {
                return "Entry '" + entry + "' is not topic:table, for example orders:fact_orders.";
            }
            String table = entry.substring(colon + 1).trim();
            return HIVE_IDENTIFIER.matcher(table).matches() ? null : "Table '" + table + "' of topic '"
                    + topicOf(entry) + "' is not a Hive name (letters, digits, underscores; not starting with a "
                    + "digit).";
        }, Validators::topicOf, entry -> "Topic '" + topicOf(entry) + "' is mapped twice.");
    }

    private static String topicOf(String entry) {
        return entry.substring(0, entry.lastIndexOf(':')).trim();
    }

    static ConfigDef.Validator partitionFields() {
        return entries("field[,field...]", field -> HIVE_IDENTIFIER.matcher(field).matches() ? null
                : "Partition field '" + field + "' is not a usable column name (letters, digits, underscores; not "
                        + "starting with a digit).",
                field -> field.toLowerCase(Locale.ROOT), field -> "Partition field '" + field + "' is listed twice.");
    }

    static ConfigDef.Validator tableProperties() {
        return entries("key=value[,key=value...]",
                entry -> entry.indexOf('=') <= 0 ? "Entry '" + entry + "' is not key=value." : null, null, null);
    }

    static ConfigDef.Validator partitioners() {
        return entries("field, time, kafka or a class name, comma-separated",
                entry -> entry.trim().matches("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*") ? null
                        : "'" + entry.trim() + "' is neither field, time, kafka nor a class name.",
                String::trim, entry -> "'" + entry.trim() + "' is listed twice.");
    }

    static ConfigDef.Validator codec() {
        return text("one of " + String.join(", ", AvroCodecs.NAMES),
                text -> AvroCodecs.NAMES.contains(text.toLowerCase(Locale.ROOT)) ? null
                        : "Unknown codec; choose one of " + String.join(", ", AvroCodecs.NAMES) + ".");
    }
}
