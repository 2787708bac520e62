package io.hivesink.commit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.common.TopicPartition;

/**
 * How a {@link TaskState} is written in its state table's parameters: one line per Kafka partition (topic, partition,
 * next offset, owned or released, then the greatest event time committed if any), the owner, the intent and the
 * last batch, each under a key of its own, stamped with the format's version ({@link DurableFormat#TASK_STATE}) and
 * kept within what every metastore backend stores.
 */
final class StateParameters {

    static final String OWNER = "hive-sink.owner";
    static final String INTENT = "hive-sink.intent";
    static final String LAST_BATCH = "hive-sink.last-batch";
    static final String OFFSETS = "hive-sink.offsets";
    static final String HOLDS = "hive-sink.holds";
    /**
     * The format of a state that holds compactions' holds: a release that does not know holds must not read it, or
     * it would land batches where a compaction is swapping a partition's location. A state without holds keeps
     * {@link DurableFormat#CURRENT}, so that a connector that never compacts can still go back a release.
     */
    static final int WITH_HOLDS = DurableFormat.CURRENT + 1;

    private StateParameters() {
    }

    /** The task's state as its table's parameters hold it. */
    static StateTables.Stored decode(int task, Table table) {
        Map<String, String> params = table.getParameters() == null ? Map.of() : table.getParameters();
        DurableFormat.TASK_STATE.check(params.get(DurableFormat.TASK_STATE.key()), "of task " + task + " in table "
                + table.getDbName() + "." + table.getTableName(), WITH_HOLDS);
        Map<TopicPartition, TaskState.PartitionState> partitions = new HashMap<>();
        for (String line : ParameterLines.get(params, OFFSETS)) {
            String[] f = line.split("\t", -1);
            // a fifth field, the event time, is absent from states written before it was kept (same format version:
            // a reader that does not know it ignores it, and one that does reads none as no time known)
            long eventTime = f.length > 4 ? eventTime(f[4]) : TaskState.PartitionState.NO_TIME;
            partitions.put(new TopicPartition(f[0], Integer.parseInt(f[1])),
                    new TaskState.PartitionState(Long.parseLong(f[2]), "owned".equals(f[3]), eventTime));
        }
        TaskState.Intent intent = null;
        String intentValue = params.get(INTENT);
        if (intentValue != null && !intentValue.isEmpty()) {
            String[] f = intentValue.split("\t", 2);
            intent = new TaskState.Intent(f[0], f[1]);
        }
        List<TaskState.Hold> holds = new ArrayList<>();
        for (String line : ParameterLines.get(params, HOLDS)) {
            String[] f = line.split("\t", -1);
            holds.add(new TaskState.Hold(f[0], f[1], f[2], f[3].isEmpty() ? null : f[3],
                    f.length > 4 ? Long.parseLong(f[4]) : 0));
        }
        TaskState state = new TaskState(params.get(OWNER), partitions, intent, params.get(LAST_BATCH), holds);
        return new StateTables.Stored(task, state, params.getOrDefault(StateTables.VERSION, "0"), table);
    }

    /** A line's event time; empty, or not a number (no release writes one), it is not known. */
    private static long eventTime(String field) {
        try {
            return field.isEmpty() ? TaskState.PartitionState.NO_TIME : Long.parseLong(field);
        } catch (NumberFormatException e) {
            return TaskState.PartitionState.NO_TIME;
        }
    }

    /** Writes the state into the parameters, next to the table's other parameters. */
    static void encode(TaskState state, Map<String, String> params) {
        List<String> lines = new ArrayList<>();
        state.partitions().entrySet().stream()
                .sorted(Map.Entry.comparingByKey(TaskState.PARTITION_ORDER))
                .forEach(e -> lines.add(e.getKey().topic() + "\t" + e.getKey().partition() + "\t"
                        + e.getValue().nextOffset() + "\t" + (e.getValue().owned() ? "owned" : "released")
                        + (e.getValue().eventTime() == TaskState.PartitionState.NO_TIME ? ""
                                : "\t" + e.getValue().eventTime())));
        ParameterLines.put(params, OFFSETS, lines);
        List<String> holds = new ArrayList<>();
        for (TaskState.Hold hold : state.holds()) {
            holds.add(hold.table() + "\t" + hold.partition() + "\t" + hold.compaction() + "\t"
                    + (hold.location() == null ? "" : hold.location()) + "\t" + hold.since());
        }
        ParameterLines.put(params, HOLDS, holds);
        DurableFormat.TASK_STATE.stamp(params, holds.isEmpty() ? DurableFormat.CURRENT : WITH_HOLDS);
        putOrRemove(params, OWNER, state.owner());
        putOrRemove(params, LAST_BATCH, state.lastBatch());
        putOrRemove(params, INTENT, state.intent() == null ? null
                : state.intent().batchId() + "\t" + state.intent().manifestPath());
        for (Map.Entry<String, String> e : params.entrySet()) {
            if (e.getValue().length() > ParameterLines.MAX_VALUE_CHARS) {
                throw new IllegalArgumentException("Metastore parameter " + e.getKey() + " would hold "
                        + e.getValue().length() + " characters, more than the " + ParameterLines.MAX_VALUE_CHARS
                        + " every metastore backend accepts.");
            }
        }
    }

    private static void putOrRemove(Map<String, String> params, String key, String value) {
        if (value == null) {
            params.remove(key);
        } else {
            params.put(key, value);
        }
    }
}
