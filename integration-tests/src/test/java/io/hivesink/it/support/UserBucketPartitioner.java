package io.hivesink.it.support;

import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.route.Partitioner;
import io.hivesink.table.PartitionSpec;

/** A custom partitioner, as a user would write one: the user field hashed into {@code user.buckets} buckets. */
public final class UserBucketPartitioner implements Partitioner {

    private int buckets = 4;

    public static int bucketOf(String user, int buckets) {
        return Math.floorMod(user.hashCode(), buckets);
    }

    @Override
    public void configure(Map<String, String> settings) {
        buckets = Integer.parseInt(settings.getOrDefault("user.buckets", "4"));
    }

    @Override
    public Binding bind(Schema valueSchema) {
        PartitionSpec spec = new PartitionSpec(List.of("user_bucket"), List.of("int"));
        return new Binding() {
            @Override
            public PartitionSpec spec() {
                return spec;
            }

            @Override
            public void values(SinkRecord record, Struct value, List<String> out) {
                out.add(Integer.toString(bucketOf(value.getString("user"), buckets)));
            }
        };
    }
}
