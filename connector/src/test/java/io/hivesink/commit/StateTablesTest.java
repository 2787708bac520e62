package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class StateTablesTest {

    @Test
    void aLargeAssignmentIsSplitIntoParametersEveryBackendAccepts() {
        Map<TopicPartition, TaskState.PartitionState> partitions = new HashMap<>();
        for (int p = 0; p < 2_000; p++) {
            partitions.put(new TopicPartition("a-rather-long-topic-name.with.dots-" + (p % 7), p),
                    new TaskState.PartitionState(1_000_000_000_000L + p, p % 3 != 0));
        }
        TaskState state = new TaskState("conn-t0-abc", partitions,
                new TaskState.Intent("conn-t0-abc-7",
                        "hdfs://nn:8020/staging/conn/task-0/conn-t0-abc-7/_manifest.avro"),
                "conn-t0-abc-6");
        Map<String, String> params = new HashMap<>();
        params.put("hive-sink.offsets.99", "left over from a bigger assignment");
        StateParameters.encode(state, params);

        assertTrue(params.size() > 20, "split over many keys: " + params.size());
        params.forEach((key, value) -> assertTrue(value.length() <= ParameterLines.MAX_VALUE_CHARS,
                key + " holds " + value.length() + " characters"));
        Table table = new Table();
        table.setParameters(params);
        TaskState decoded = StateParameters.decode(0, table).state();
        assertEquals(state, decoded);
    }

    @Test
    void anEmptyStateHasNoIntentAndNoOffsets() {
        Map<String, String> params = new HashMap<>();
        StateParameters.encode(TaskState.EMPTY, params);
        Table table = new Table();
        table.setParameters(params);
        TaskState decoded = StateParameters.decode(3, table).state();
        assertEquals(Map.of(), decoded.partitions());
        assertNull(decoded.intent());
    }
}
