package io.hivesink.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

import io.hivesink.HiveSinkConnector;

class HiveSinkConfigTest {

    static Map<String, String> minimal() {
        Map<String, String> props = new HashMap<>();
        props.put("hive.metastore.uris", "thrift://metastore:9083");
        return props;
    }

    @Test
    void defaultsAreSane() {
        HiveSinkConfig config = HiveSinkConfig.parse(minimal());
        assertEquals(1_000_000, config.batch().maxRecords());
        assertEquals("snappy", config.avro().codecName());
        assertEquals("default", config.tables().database());
        assertEquals("/warehouse/hive-sink", config.storage().warehouseDir());
        assertEquals("/warehouse/hive-sink/.hive-sink-staging", config.storage().stagingDir());
        assertEquals(List.of(), config.partitioning().fields());
    }

    @Test
    void theIdleTimeIsOffOrATenthOfASecondToADay() {
        assertEquals(0, HiveSinkConfig.parse(minimal()).batch().maxIdleMs(), "off by default");
        Map<String, String> props = minimal();
        props.put("batch.max.idle.ms", "30000");
        assertEquals(30_000, HiveSinkConfig.parse(props).batch().maxIdleMs());
        props.put("batch.max.idle.ms", "50");
        ConfigException tooShort = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(tooShort.getMessage().contains("batch.max.idle.ms")
                && tooShort.getMessage().contains("must be 0 (off) or from 100 to 86400000"), tooShort.getMessage());
    }

    @Test
    void theUmaskIsThreeOctalDigitsAndReachesHadoopsConfiguration() {
        assertEquals("", HiveSinkConfig.parse(minimal()).storage().umask());
        Map<String, String> props = minimal();
        props.put("fs.umask", "027");
        String umask = HiveSinkConfig.parse(props).storage().umask();
        assertEquals("027", umask);
        org.apache.hadoop.conf.Configuration conf = io.hivesink.fs.HadoopFileSystems.configuration("", umask);
        assertEquals((short) 0027, org.apache.hadoop.fs.permission.FsPermission.getUMask(conf).toShort());
        assertEquals((short) 0022, org.apache.hadoop.fs.permission.FsPermission.getUMask(
                io.hivesink.fs.HadoopFileSystems.configuration("", "")).toShort(), "Hadoop's default");
        props.put("fs.umask", "u=rwx");
        ConfigException bad = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(bad.getMessage().contains("fs.umask") && bad.getMessage().contains("027"), bad.getMessage());
        props.put("fs.umask", "028");
        assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
    }

    @Test
    void everyKeyIsDocumentedWithAGroupAndSecretsArePasswords() {
        for (ConfigDef.ConfigKey key : HiveSinkConfig.CONFIG_DEF.configKeys().values()) {
            assertTrue(key.documentation != null && key.documentation.length() > 20, key.name);
            assertTrue(key.group != null, key.name);
            assertTrue(key.validator != null, key.name + " has no validator");
            if (key.name.contains("password")) {
                assertEquals(ConfigDef.Type.PASSWORD, key.type, key.name);
            }
        }
    }

    @Test
    void perTableKeysOverrideTheConnectorsAndBadOnesAreNamed() {
        Map<String, String> props = minimal();
        props.put("partitioner", "time");
        props.put("table.fact_orders.partitioner", "field");
        props.put("table.fact_orders.partition.fields", "country");
        props.put("table.fact_orders.location", "/data/orders");
        props.put("table.properties", "owner=etl");
        HiveSinkConfig.parse(props);
        TableOverrides settings = TableOverrides.of(props);
        assertEquals(List.of("field"), settings.configFor("fact_orders").partitioners());
        assertEquals(List.of("country"), PartitionConfig.fieldsOf(settings.settingsFor("fact_orders")));
        assertEquals(List.of("time"), settings.configFor("dim_customer").partitioners());
        assertEquals("/data/orders", settings.location("fact_orders"));
        assertEquals(null, settings.location("dim_customer"));
        assertEquals(Map.of("owner", "etl"), settings.configFor("dim_customer").tableProperties());

        props.put("table.fact_orders.avro.codec", "zstandard");
        props.put("table.fact_orders.avro.codec.level", "19");
        HiveSinkConfig.parse(props);
        assertEquals(19, TableOverrides.of(props).configFor("fact_orders").codecLevel());
        props.put("table.fact_orders.avro.codec", "snappy");
        ConfigException level = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(level.getMessage().contains("table.fact_orders.avro.codec.level"), level.getMessage());
        props.remove("table.fact_orders.avro.codec");
        props.remove("table.fact_orders.avro.codec.level");

        props.put("table.fact_orders.batch.size", "3");
        ConfigException unknown = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(unknown.getMessage().contains("table.fact_orders.batch.size"), unknown.getMessage());
        props.remove("table.fact_orders.batch.size");
        props.put("table.fact_orders.partition.time.zone", "Mars/Olympus");
        ConfigException zone = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(zone.getMessage().contains("table.fact_orders.partition.time.zone"), zone.getMessage());

        Map<String, String> connectorProps = new HashMap<>(props);
        connectorProps.put("connector.class", HiveSinkConnector.class.getName());
        connectorProps.put("topics", "orders");
        boolean reported = new HiveSinkConnector().validate(connectorProps).configValues().stream()
                .anyMatch(v -> v.name().equals("table.fact_orders.partition.time.zone")
                        && !v.errorMessages().isEmpty());
        assertTrue(reported, "validate() reports a bad per-table key on that key");
    }

    @Test
    void kerberosKeysComeTogetherAndSaslNeedsThemAndTheMetastorePrincipal() {
        Map<String, String> props = minimal();
        props.put("hadoop.kerberos.principal", "sink@EXAMPLE.COM");
        ConfigException keytab = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(keytab.getMessage().contains("hadoop.kerberos.keytab"), keytab.getMessage());
        props.put("hadoop.kerberos.keytab", "/etc/security/keytabs/sink.keytab");
        assertTrue(HiveSinkConfig.parse(props).kerberos().enabled());

        Map<String, String> sasl = minimal();
        sasl.put("hive.metastore.sasl.enabled", "true");
        sasl.put("hive.metastore.kerberos.principal", "hive/_HOST@EXAMPLE.COM");
        assertTrue(HiveSinkConfig.parseKeys(sasl).crossKeyProblems().get("hive.metastore.sasl.enabled")
                .contains("hadoop.kerberos.principal"));
        sasl.putAll(Map.of("hadoop.kerberos.principal", "sink@EXAMPLE.COM", "hadoop.kerberos.keytab", "/k"));
        assertEquals(Map.of(), HiveSinkConfig.parseKeys(sasl).crossKeyProblems());
        sasl.put("hive.metastore.kerberos.principal", "hive@EXAMPLE.COM");
        assertTrue(HiveSinkConfig.parseKeys(sasl).crossKeyProblems().get("hive.metastore.kerberos.principal")
                .contains("service/host@REALM"));
    }

    @Test
    void eachBuiltInPartitionerReadsOnlyItsOwnKeys() {
        Map<String, String> settings = Map.of("partition.fields", "country,day", "partition.time.zone", "Mars/Base",
                "avro.codec", "no-such-codec");
        assertEquals(List.of("country", "day"), PartitionConfig.fieldsOf(settings));
        ConfigException zone = assertThrows(ConfigException.class, () -> PartitionConfig.timeOf(settings));
        assertTrue(zone.getMessage().contains("partition.time.zone"), zone.getMessage());

        PartitionConfig.Time time = PartitionConfig.timeOf(Map.of("partition.time.field", " ts ",
                "partition.time.field.unit", "seconds", "partition.time.pattern", "dt=yyyy-MM-dd/hr=HH"));
        assertEquals("ts", time.field());
        assertEquals(java.util.concurrent.TimeUnit.SECONDS, time.fieldUnit());
        assertEquals(java.time.ZoneId.of("UTC"), time.zone());
        assertEquals("dt=yyyy-MM-dd/hr=HH", time.pattern());
    }

    @Test
    void aTableConfigHoldsTheConnectorsValueOrTheTablesOwn() {
        Map<String, String> props = minimal();
        props.put("avro.codec", "deflate");
        props.put("batch.max.records", "5000");
        props.put("table.big.batch.max.records", "200000");
        props.put("table.big.schema.evolution", "none");
        TableOverrides settings = TableOverrides.of(props);
        TableConfig big = settings.configFor("big");
        assertEquals(200_000, big.batchMaxRecords());
        assertFalse(big.schemaEvolution());
        assertEquals("deflate", big.codecName());
        TableConfig other = settings.configFor("other");
        assertEquals(5000, other.batchMaxRecords());
        assertTrue(other.schemaEvolution());
        assertEquals(List.of("field"), other.partitioners());
    }

    @Test
    void routingAndPartitioningKeysAreChecked() {
        Map<String, String> props = minimal();
        props.put("route.topic.regex", "prod\\.(.+");
        assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        props.put("route.topic.regex", "prod\\.(.+)");
        props.put("route.field", "kind");
        ConfigException both = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(both.getMessage().contains("route.topic.regex"), both.getMessage());
        props.remove("route.topic.regex");
        assertEquals("${field}", HiveSinkConfig.parse(props).tables().routeTableTemplate());
        props.put("partition.time.pattern", "dt=yyyy-MM-dd/hour");
        ConfigException pattern = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(pattern.getMessage().contains("column=format"), pattern.getMessage());
        props.put("partition.time.pattern", "dt=yyyy-MM-dd/hr=HH");
        props.put("partitioner", "time, not a class");
        assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
    }

    @Test
    void crossKeyProblemsNameTheKey() {
        Map<String, String> props = minimal();
        props.put("avro.codec", "deflate");
        props.put("avro.codec.level", "12");
        ConfigException e = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(e.getMessage().contains("avro.codec.level"), e.getMessage());
        assertTrue(e.getMessage().contains("1 to 9"), e.getMessage());
    }

    @Test
    void confluentInputNeedsARegistryAndTheByteArrayConverter() {
        Map<String, String> props = minimal();
        props.put("input.format", "confluent-avro");
        assertEquals(Map.of("schema.registry.url", "Set the schema registry's URL when input.format=confluent-avro: "
                + "the records' writer schemas are fetched from it."), HiveSinkConfig.parseKeys(props)
                .crossKeyProblems());
        props.put("schema.registry.url", "http://registry-a:8081, https://registry-b:8081/");
        props.put("schema.registry.basic.auth.user.info", "sink:secret");
        HiveSinkConfig config = HiveSinkConfig.parse(props);
        assertTrue(config.input().confluentAvro());
        assertEquals(List.of("http://registry-a:8081", "https://registry-b:8081/"), config.input().registryUrls());
        assertEquals("sink:secret", config.input().registryBasicAuth().value());
        assertFalse(config.values().toString().contains("sink:secret"),
                "the parsed credentials are a Password, hidden wherever the config is printed or logged");

        props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        String problem = HiveSinkConfig.parseKeys(props).crossKeyProblems().get("input.format");
        assertTrue(problem.contains("ByteArrayConverter") && problem.contains("JsonConverter"), problem);
        props.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        assertEquals(Map.of(), HiveSinkConfig.parseKeys(props).crossKeyProblems());

        props.put("input.format", "connect");
        problem = HiveSinkConfig.parseKeys(props).crossKeyProblems().get("input.format");
        assertTrue(problem.contains("input.format=confluent-avro"), problem);

        props.put("schema.registry.url", "registry:8081");
        ConfigException bad = assertThrows(ConfigException.class, () -> HiveSinkConfig.parseKeys(props));
        assertTrue(bad.getMessage().contains("schema.registry.url") && bad.getMessage().contains("http"),
                bad.getMessage());
    }

    @Test
    void tombstonesFailByDefaultAndDeadLetterNeedsADeadLetterQueue() {
        Map<String, String> props = minimal();
        assertEquals(InputConfig.NullValues.FAIL, HiveSinkConfig.parse(props).input().nullValues());
        props.put("behavior.on.null.values", "ignore");
        assertEquals(InputConfig.NullValues.IGNORE, HiveSinkConfig.parse(props).input().nullValues());
        props.put("behavior.on.null.values", "dead-letter");
        String problem = HiveSinkConfig.parseKeys(props).crossKeyProblems().get("behavior.on.null.values");
        assertTrue(problem.contains("errors.tolerance=all"), problem);
        props.put("errors.tolerance", "all");
        problem = HiveSinkConfig.parseKeys(props).crossKeyProblems().get("behavior.on.null.values");
        assertTrue(problem.contains("errors.deadletterqueue.topic.name"), problem);
        props.put("errors.log.enable", "true");
        assertEquals(InputConfig.NullValues.DEAD_LETTER, HiveSinkConfig.parse(props).input().nullValues());
        props.remove("errors.log.enable");
        props.put("errors.deadletterqueue.topic.name", "dlq");
        assertEquals(Map.of(), HiveSinkConfig.parseKeys(props).crossKeyProblems());
        props.put("behavior.on.null.values", "drop");
        ConfigException bad = assertThrows(ConfigException.class, () -> HiveSinkConfig.parseKeys(props));
        assertTrue(bad.getMessage().contains("behavior.on.null.values"), bad.getMessage());
    }

    @Test
    void connectorValidateReportsProblemsPerKey() {
        Map<String, String> props = minimal();
        props.put("hive.metastore.uris", "http://metastore");
        props.put("hive.table.map", "a:b,a:c");
        props.put("partition.fields", "ok,not-ok");
        props.put("hive.database", "9lives");
        Map<String, List<String>> errors = errors(new HiveSinkConnector().validate(props).configValues());
        assertEquals(4, errors.size(), errors.toString());
        assertTrue(errors.get("hive.metastore.uris").get(0).contains("thrift://"), errors.toString());
        assertTrue(errors.get("hive.table.map").get(0).contains("mapped twice"), errors.toString());
        assertTrue(errors.get("partition.fields").get(0).contains("not-ok"), errors.toString());
        assertTrue(errors.get("hive.database").get(0).contains("Hive name"), errors.toString());

        Map<String, String> tls = minimal();
        tls.put("hive.metastore.ssl.enabled", "true");
        Map<String, List<String>> tlsErrors = errors(new HiveSinkConnector().validate(tls).configValues());
        assertEquals(List.of("hive.metastore.ssl.truststore.path"), List.copyOf(tlsErrors.keySet()));
    }

    private static Map<String, List<String>> errors(List<ConfigValue> values) {
        Map<String, List<String>> errors = new HashMap<>();
        for (ConfigValue value : values) {
            if (!value.errorMessages().isEmpty()) {
                errors.put(value.name(), value.errorMessages());
            }
        }
        return errors;
    }

    /** The committed reference doc is what the ConfigDef generates; regenerate it when a key changes. */
    @Test
    void configurationReferenceIsUpToDate() throws Exception {
        Path doc = Path.of("..", "docs", "configuration.md");
        assertTrue(Files.exists(doc), "docs/configuration.md is missing: run the command in the README");
        assertEquals(ConfigReference.markdown(), Files.readString(doc, StandardCharsets.UTF_8),
                "docs/configuration.md is stale: regenerate it with the command in the README");
    }

    @Test
    void theExampleConnectorConfigsAreValid() throws Exception {
        List<Path> examples;
        try (var files = Files.list(Path.of("..", "config"))) {
            examples = files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        }
        assertTrue(examples.size() >= 2, examples.toString());
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        for (Path example : examples) {
            Map<String, String> props = new HashMap<>();
            json.readTree(example.toFile()).get("config").properties()
                    .forEach(e -> props.put(e.getKey(), e.getValue().asText()));
            HiveSinkConfig config = HiveSinkConfig.parse(props);
            assertTrue(config.crossKeyProblems().isEmpty(), example + ": " + config.crossKeyProblems());
        }
    }
}
