package io.hivesink.it.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import io.hivesink.input.ConfluentFrame;
import io.hivesink.it.support.StackExtension;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.connect.ConnectRelease;
import io.hivesink.stack.connect.ConnectWorkerProcess;
import io.hivesink.stack.hive.MetastoreTableReader;
import io.hivesink.stack.registry.RegistryStandIn;

/**
 * Secrets stay secret: a connector whose registry credentials and trust-store passwords come from a Connect config
 * provider ({@code ${file:...}}) lands Confluent-framed records through a registry that demands those credentials and
 * a trust store that opens only with that password, on a stock worker that logs everything at DEBUG; then neither the
 * worker's log nor its console nor any REST answer but the connector's own config holds a secret value. A second
 * connector given a wrong password fails, and says which key to check without printing what it was given.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(StackExtension.class)
class SecretsIT {

    private static final org.apache.avro.Schema PING = new org.apache.avro.Schema.Parser().parse("""
            {"type": "record", "name": "Ping", "namespace": "io.hivesink.it",
             "fields": [{"name": "seq", "type": "long"}, {"name": "note", "type": "string"}]}""");

    private FailoverStack stack;
    private RegistryStandIn registry;
    private ConnectWorkerProcess worker;
    private KafkaProducer<byte[], byte[]> producer;
    private Path work;

    /** Random each run, so that nothing can match them by chance or by being written down in the code. */
    private final String registryPassword = "reg-" + UUID.randomUUID();
    private final String truststorePassword = "ts-" + UUID.randomUUID();
    private final String metastoreTruststorePassword = "mts-" + UUID.randomUUID();
    private final String wrongPassword = "wrong-" + UUID.randomUUID();

    @BeforeAll
    void start(FailoverStack failover) throws Exception {
        stack = failover;
        work = Files.createDirectories(Path.of("target", "it-stack", "SecretsIT", "secrets").toAbsolutePath());
        registry = new RegistryStandIn().start();
        registry.requireBasicAuth("reader:" + registryPassword);
        Path truststore = work.resolve("registry-truststore.p12");
        keytool("-genkeypair", "-alias", "registry", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", truststore.toString(),
                "-storepass", truststorePassword, "-keypass", truststorePassword);
        Files.writeString(work.resolve("hive-sink.properties"), String.join("\n",
                "registry.user.info=reader:" + registryPassword,
                "registry.truststore.password=" + truststorePassword,
                "metastore.truststore.password=" + metastoreTruststorePassword,
                "wrong.user.info=reader:" + wrongPassword, ""), StandardCharsets.UTF_8);
        Map<String, String> workerProps = Map.of(
                "config.providers", "file",
                "config.providers.file.class", "org.apache.kafka.common.config.provider.FileConfigProvider");
        worker = stack.startWorker(ConnectRelease.KAFKA_4_1, "secrets", workerProps, Map.of(), "DEBUG");
        producer = stack.kafka().createProducer(SampleData.producerSettings());
    }

    @AfterAll
    void stop() {
        if (producer != null) {
            producer.close();
        }
        if (worker != null) {
            worker.close();
        }
        if (registry != null) {
            registry.close();
        }
    }

    private Map<String, String> connector(String name, String topic, String userInfoKey) {
        Path secrets = work.resolve("hive-sink.properties");
        Map<String, String> config = stack.connectorConfig(name, "secrets");
        config.put("topics", topic);
        config.put("input.format", "confluent-avro");
        config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.remove("value.converter.schemas.enable");
        config.put("schema.registry.url", registry.url());
        config.put("schema.registry.basic.auth.user.info", "${file:" + secrets + ":" + userInfoKey + "}");
        config.put("schema.registry.ssl.truststore.location", work.resolve("registry-truststore.p12").toString());
        config.put("schema.registry.ssl.truststore.password", "${file:" + secrets + ":registry.truststore.password}");
        config.put("hive.metastore.ssl.truststore.password",
                "${file:" + secrets + ":metastore.truststore.password}");
        config.put("schema.registry.retry.attempts", "2");
        config.put("schema.registry.retry.backoff.ms", "100");
        return config;
    }

    @Test
    void noSecretValueInTheDebugLogOrInRestAnswersAndAWrongOneIsReportedWithoutItsValue() throws Exception {
        String topic = "pings";
        stack.kafka().createTopic(topic, 1);
        int schemaId = registry.register(topic + "-value", PING.toString());
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (long seq = 0; seq < 500; seq++) {
            GenericRecord ping = new GenericData.Record(PING);
            ping.put("seq", seq);
            ping.put("note", "ping " + seq);
            records.add(new ProducerRecord<>(topic, null, ConfluentFrame.frame(schemaId, avro(ping))));
        }
        SampleData.sendAll(producer, records);

        worker.rest().putConnector("secret-sink", connector("secret-sink", topic, "registry.user.info"));
        stack.awaitCommittedToEnd("secret-sink", Duration.ofMinutes(2), List.of(topic));
        Map<String, String> config = stack.connectorConfig("x", "secrets");
        try (ThriftMetastore metastore = ThriftMetastore.connect(new MetastoreSettings(
                List.of(config.get("hive.metastore.uris")), false, "", ""))) {
            assertEquals(500, new MetastoreTableReader(metastore, stack.fileSystem()).rows("secrets", topic).size(),
                    "landed through the registry that wants the secret");
        }
        assertTrue(registry.requests().stream().anyMatch(r -> r.endsWith("-> 200")), "the registry let it in");

        worker.rest().putConnector("wrong-sink", connector("wrong-sink", topic, "wrong.user.info"));
        String trace = worker.rest().awaitFailedTaskTrace("wrong-sink", Duration.ofMinutes(2));
        assertTrue(trace.contains("401") && trace.contains("schema.registry.basic.auth.user.info"),
                "the failure names the status and the key to check: " + trace);

        Map<String, String> answers = new LinkedHashMap<>();
        for (String path : List.of("connectors?expand=status&expand=info", "connectors/secret-sink/status",
                "connectors/secret-sink/tasks", "connectors/secret-sink/tasks/0/status", "connectors/wrong-sink/status",
                "connectors/wrong-sink/tasks", "connectors/wrong-sink/topics", "connector-plugins")) {
            answers.put("GET " + path, worker.rest().get(path));
        }
        // a user who validates literal values: Connect hides Password-typed ones in its answer
        Map<String, String> literal = connector("validate", topic, "registry.user.info");
        literal.put("schema.registry.basic.auth.user.info", "reader:" + registryPassword);
        literal.put("schema.registry.ssl.truststore.password", truststorePassword);
        literal.put("hive.metastore.ssl.truststore.password", metastoreTruststorePassword);
        answers.put("PUT validate", worker.rest().validate("io.hivesink.HiveSinkConnector", literal).toString());

        List<String> logLines = worker.logLines();
        assertTrue(logLines.stream().anyMatch(l -> l.contains(" DEBUG ")), "the worker logged at DEBUG");
        assertTrue(logLines.stream().anyMatch(l -> l.contains("schema.registry.basic.auth.user.info")),
                "the log shows the connector's configuration, so a leak would be there to see");
        for (String secret : List.of(registryPassword, truststorePassword, metastoreTruststorePassword,
                wrongPassword)) {
            List<String> leaks = new ArrayList<>();
            try (Stream<String> lines = logLines.stream()) {
                lines.filter(l -> l.contains(secret)).limit(5).forEach(leaks::add);
            }
            answers.forEach((what, body) -> {
                if (body.contains(secret)) {
                    leaks.add(what + ": " + body);
                }
            });
            assertEquals(List.of(), leaks, "no secret value in " + logLines.size() + " log lines or "
                    + answers.size() + " REST answers");
        }
        // the task configs Connect serves keep the provider's references, not what they resolved to
        assertTrue(answers.get("GET connectors/secret-sink/tasks").contains("${file:"),
                answers.get("GET connectors/secret-sink/tasks"));
        System.out.printf("SecretsIT: searched %d log lines (%d at DEBUG) and %d REST answers for 4 secrets%n",
                logLines.size(), logLines.stream().filter(l -> l.contains(" DEBUG ")).count(), answers.size());
    }

    private static byte[] avro(GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
        return out.toByteArray();
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), "keytool: " + output);
    }
}
