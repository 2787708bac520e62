package io.hivesink.route;

import java.util.List;
import java.util.Set;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.table.PartitionSpec;

/**
 * {@code kafka}: partitions by where a record came from, in columns {@code kafka_topic} (string) and
 * {@code kafka_partition} (int); useful when several topics land in one table.
 */
public final class KafkaPartitioner implements Partitioner {

    public static final String TOPIC_COLUMN = "kafka_topic";
    public static final String PARTITION_COLUMN = "kafka_partition";

    private static final PartitionSpec SPEC =
            new PartitionSpec(List.of(TOPIC_COLUMN, PARTITION_COLUMN), List.of("string", "int"));

    private static final Binding BINDING = new Binding() {
        @Override
        public PartitionSpec spec() {
            return SPEC;
        }

        @Override
        public Set<String> fieldsRead() {
            return Set.of();
        }

        @Override
        public void values(SinkRecord record, Struct value, List<String> out) {
            out.add(record.topic());
            out.add(record.kafkaPartition() == null ? null : record.kafkaPartition().toString());
        }
    };

    @Override
    public Binding bind(Schema valueSchema) {
        return BINDING;
    }
}
