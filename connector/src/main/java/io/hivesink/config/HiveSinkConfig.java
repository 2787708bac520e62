package io.hivesink.config;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The connector's one configuration definition, composed of its groups: {@link StorageConfig}, {@link
 * MetastoreConfig}, {@link KerberosConfig}, {@link InputConfig}, {@link TablesConfig}, {@link PartitionConfig},
 * {@link DoneConfig}, {@link CompactionConfig}, {@link BatchConfig}, {@link AvroConfig}, {@link ParquetConfig} and
 * {@link OrcConfig}. Each group defines and documents its keys and reads them into a typed value;
 * this class parses the properties once and checks what crosses groups. {@code docs/configuration.md} is generated
 * from the definition by {@link ConfigReference} and checked against it by a test.
 */
public final class HiveSinkConfig extends AbstractConfig {

    /** Set by the connector in each task's configuration (not a user setting): which task this is. */
    public static final String TASK_ID = "hive-sink.task.id";
    /** Set by the connector in each task's configuration (not a user setting): how many tasks it runs. */
    public static final String TASK_COUNT = "hive-sink.task.count";

    /** Hive identifiers: what a database, table or column name may hold without quoting. */
    public static final Pattern HIVE_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    public static final ConfigDef CONFIG_DEF = define();

    private final StorageConfig storage;
    private final S3Config s3;
    private final MetastoreConfig metastore;
    private final KerberosConfig kerberos;
    private final InputConfig input;
    private final TablesConfig tables;
    private final PartitionConfig partitioning;
    private final DoneConfig done;
    private final CompactionConfig compaction;
    private final BatchConfig batch;
    private final AvroConfig avro;
    private final ParquetConfig parquet;
    private final OrcConfig orc;

    private HiveSinkConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
        storage = StorageConfig.from(this);
        s3 = S3Config.from(this);
        metastore = MetastoreConfig.from(this);
        kerberos = KerberosConfig.from(this);
        input = InputConfig.from(this);
        tables = TablesConfig.from(this);
        partitioning = PartitionConfig.from(this);
        done = DoneConfig.from(this);
        compaction = CompactionConfig.from(this);
        batch = BatchConfig.from(this);
        avro = AvroConfig.from(this);
        parquet = ParquetConfig.from(this);
        orc = OrcConfig.from(this);
    }

    /** Parses the properties, checking each key alone; see {@link #crossKeyProblems()} for the rest. */
    public static HiveSinkConfig parseKeys(Map<String, String> props) {
        return new HiveSinkConfig(props);
    }

    /**
     * Parses and checks the properties; cross-key problems are reported as a {@link ConfigException} naming the key.
     */
    public static HiveSinkConfig parse(Map<String, String> props) {
        HiveSinkConfig config = new HiveSinkConfig(props);
        Map<String, String> problems = config.crossKeyProblems();
        if (!problems.isEmpty()) {
            Map.Entry<String, String> first = problems.entrySet().iterator().next();
            throw new ConfigException(first.getKey(), config.originals().get(first.getKey()), first.getValue());
        }
        return config;
    }

    /**
     * Parses only {@code keys} of {@code props}, as the connector's definition defines them, without logging: for a
     * part that reads a few keys (a partitioner, a table's own settings).
     *
     * @throws ConfigException if one of the keys has a value that is not valid, naming the key
     */
    static AbstractConfig readKeys(Map<String, String> props, Collection<String> keys) {
        ConfigDef subset = new ConfigDef();
        keys.forEach(key -> subset.define(CONFIG_DEF.configKeys().get(key)));
        return new AbstractConfig(subset, props, false);
    }

    private static ConfigDef define() {
        ConfigDef def = new ConfigDef();
        StorageConfig.define(def);
        S3Config.define(def);
        MetastoreConfig.define(def);
        KerberosConfig.define(def);
        InputConfig.define(def);
        TablesConfig.define(def);
        PartitionConfig.define(def);
        DoneConfig.define(def);
        CompactionConfig.define(def);
        BatchConfig.define(def);
        AvroConfig.define(def);
        ParquetConfig.define(def);
        OrcConfig.define(def);
        return def;
    }

    /** Problems that involve more than one key, or that a single-key validator cannot see; key to message. */
    public Map<String, String> crossKeyProblems() {
        Map<String, String> problems = new LinkedHashMap<>();
        problems.putAll(avro.problems());
        problems.putAll(kerberos.problems());
        problems.putAll(s3.problems());
        problems.putAll(metastore.problems(kerberos));
        problems.putAll(tables.problems());
        problems.putAll(input.problems(originals()));
        problems.putAll(TableOverrides.problems(originalsStrings()));
        problems.putAll(DoneConfig.problems(originals()));
        return problems;
    }

    public StorageConfig storage() {
        return storage;
    }

    public S3Config s3() {
        return s3;
    }

    public MetastoreConfig metastore() {
        return metastore;
    }

    public KerberosConfig kerberos() {
        return kerberos;
    }

    public InputConfig input() {
        return input;
    }

    public TablesConfig tables() {
        return tables;
    }

    public PartitionConfig partitioning() {
        return partitioning;
    }

    public DoneConfig done() {
        return done;
    }

    public CompactionConfig compaction() {
        return compaction;
    }

    public BatchConfig batch() {
        return batch;
    }

    public AvroConfig avro() {
        return avro;
    }

    public ParquetConfig parquet() {
        return parquet;
    }

    public OrcConfig orc() {
        return orc;
    }
}
