package io.hivesink.route;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.config.PartitionConfig;
import io.hivesink.table.PartitionSpec;

/** Makes the partitioners that {@code partitioner} names: built-in ones by name, custom ones by class. */
public final class Partitioners {

    public static final String FIELD = "field";
    public static final String TIME = "time";
    public static final String KAFKA = "kafka";

    private Partitioners() {
    }

    /**
     * The partitioners of the names given: built-in ones by name, others by class name.
     *
     * @param settings the table's settings, given to each partitioner's {@link Partitioner#configure}
     * @throws ConfigException if a class cannot be loaded or made, naming it
     */
    public static List<Partitioner> create(List<String> names, Map<String, String> settings) {
        List<Partitioner> partitioners = new ArrayList<>(names.size());
        for (String name : names) {
            Partitioner partitioner = switch (name.trim().toLowerCase(Locale.ROOT)) {
                case FIELD -> new FieldPartitioner();
                case TIME -> new TimePartitioner();
                case KAFKA -> new KafkaPartitioner();
                default -> instantiate(name.trim());
            };
            partitioner.configure(settings);
            partitioners.add(partitioner);
        }
        return List.copyOf(partitioners);
    }

    /**
     * The same partitioners, placing records as they do, but giving no event time: for a table whose event times
     * must not count towards its Kafka partitions' (they are of another clock than the other tables').
     */
    public static List<Partitioner> withoutEventTimes(List<Partitioner> partitioners) {
        List<Partitioner> quiet = new ArrayList<>(partitioners.size());
        for (Partitioner partitioner : partitioners) {
            quiet.add(new Partitioner() {
                @Override
                public void configure(Map<String, String> settings) {
                    partitioner.configure(settings);
                }

                @Override
                public Binding bind(Schema valueSchema) {
                    Binding binding = partitioner.bind(valueSchema);
                    return new Binding() {
                        @Override
                        public PartitionSpec spec() {
                            return binding.spec();
                        }

                        @Override
                        public Set<String> fieldsAsColumns() {
                            return binding.fieldsAsColumns();
                        }

                        @Override
                        public Set<String> fieldsRead() {
                            return binding.fieldsRead();
                        }

                        @Override
                        public void values(SinkRecord record, Struct value, List<String> out) {
                            binding.values(record, value, out);
                        }
                    };
                }
            });
        }
        return List.copyOf(quiet);
    }

    private static Partitioner instantiate(String className) {
        Class<?> type;
        try {
            type = Class.forName(className, true, Partitioner.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new ConfigException(PartitionConfig.PARTITIONER, className, "No built-in partitioner ("
                    + FIELD + ", " + TIME + ", " + KAFKA + ") and no class of that name on the plugin's class path. "
                    + "Put the jar with the class in the connector's plugin directory.");
        }
        if (!Partitioner.class.isAssignableFrom(type)) {
            throw new ConfigException(PartitionConfig.PARTITIONER, className, "The class does not implement "
                    + Partitioner.class.getName() + ".");
        }
        try {
            return (Partitioner) type.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new ConfigException(PartitionConfig.PARTITIONER, className, "Cannot make an instance (a public "
                    + "no-argument constructor is needed): " + e);
        }
    }
}
