package io.hivesink.bench.e2e;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Struct;

import io.hivesink.avro.encode.ByteSink;
import io.hivesink.avro.encode.StructEncoder;
import io.hivesink.bench.BenchData;
import io.hivesink.bench.BenchData.DataSet;
import io.hivesink.input.ConfluentFrame;
import io.hivesink.stack.registry.RegistryStandIn;

/**
 * Fills a topic once per data set with the benchmark records as Confluent's serializer frames them (the schema
 * registered under the topic's subject), spread evenly over its partitions, so that every configuration reads the
 * same bytes.
 */
final class TopicLoader {

    /** A loaded topic: its records, their value bytes in all, and where each partition ends. */
    record LoadedTopic(String topic, DataSet set, long records, long valueBytes, Map<TopicPartition, Long> ends) {
    }

    private TopicLoader() {
    }

    static LoadedTopic load(Admin admin, String bootstrap, RegistryStandIn registry, DataSet set, int records,
            int partitions) throws Exception {
        return load(admin, bootstrap, registry, set, records, partitions,
                "e2e_" + set.name().toLowerCase(java.util.Locale.ROOT));
    }

    static LoadedTopic load(Admin admin, String bootstrap, RegistryStandIn registry, DataSet set, int records,
            int partitions, String topic) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        org.apache.avro.Schema avro = BenchData.avroSchema(set);
        int schemaId = registry.register(topic + "-value", avro.toString());
        org.apache.kafka.connect.data.Schema connect = BenchData.connectSchema(avro);
        StructEncoder encoder = StructEncoder.compile(connect, avro);
        ByteSink datum = new ByteSink(8192);
        Map<String, Object> settings = new HashMap<>();
        settings.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        settings.put(ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20);
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        long bytes = 0;
        int chunk = 50_000;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int from = 0; from < records; from += chunk) {
                int count = Math.min(chunk, records - from);
                List<Struct> structs = BenchData.records(connect, count, 42L + from);
                List<Future<RecordMetadata>> acks = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    datum.reset();
                    encoder.encode(structs.get(i), datum);
                    byte[] value = ConfluentFrame.frame(schemaId, Arrays.copyOf(datum.array(), datum.size()));
                    bytes += value.length;
                    acks.add(producer.send(new ProducerRecord<>(topic, (from + i) % partitions, null, value)));
                }
                producer.flush();
                for (Future<RecordMetadata> ack : acks) {
                    ack.get();
                }
            }
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            ends.put(new TopicPartition(topic, p), (long) (records / partitions + (p < records % partitions ? 1 : 0)));
        }
        return new LoadedTopic(topic, set, records, bytes, ends);
    }
}
