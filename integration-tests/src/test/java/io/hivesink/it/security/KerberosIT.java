package io.hivesink.it.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.stack.SampleData;
import io.hivesink.stack.connect.ConnectWorkerProcess;
import io.hivesink.stack.hive.MetastoreTableReader;
import io.hivesink.stack.security.KerberizedStack;

/**
 * Two connectors with two Kerberos principals in one stock worker, on kerberized HDFS (permissions on) and a
 * metastore that talks SASL only: each lands its records exactly once in a warehouse directory only its principal
 * may enter, while tickets that live 40 s expire several times over; the files are owned by the principal that
 * wrote them; and a connector pointed at the other principal's directory fails, saying who was refused where.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KerberosIT {

    /** How long the KDC's tickets live. */
    static final Duration TICKET = Duration.ofSeconds(Long.getLong("hivesink.it.ticketSeconds", 40));
    /** How many ticket lifetimes the records keep flowing. */
    static final int LIFETIMES = 3;

    static final Schema EVENT = SchemaBuilder.struct().name("io.hivesink.it.Event")
            .field("seq", Schema.INT64_SCHEMA)
            .field("who", Schema.STRING_SCHEMA)
            .build();

    private KerberizedStack stack;
    private ConnectWorkerProcess worker;
    private KafkaProducer<byte[], byte[]> producer;
    private final Map<String, Path> keytabs = new HashMap<>();
    private final Map<String, String> warehouses = new HashMap<>();
    private final Map<String, Long> produced = new HashMap<>();

    @BeforeAll
    void startStack() throws Exception {
        stack = KerberizedStack.start(Path.of("target", "it-stack", "KerberosIT").toAbsolutePath(), TICKET);
        for (String user : List.of("alice", "bob")) {
            keytabs.put(user, stack.addUser(user));
            warehouses.put(user, stack.privateWarehouse(user));
            stack.kafka().createTopic(topic(user), 2);
        }
        worker = stack.startWorker("kerberos", "INFO");
        producer = stack.kafka().createProducer(SampleData.producerSettings());
    }

    @AfterAll
    void stopStack() {
        if (producer != null) {
            producer.close();
        }
        if (worker != null) {
            worker.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    private static String topic(String user) {
        return user + "_events";
    }

    private static String database(String user) {
        return user + "_db";
    }

    private Map<String, String> connectorConfig(String user, String warehouseOf, String database) {
        Map<String, String> config = stack.connectorConfig(user + "-sink", user, keytabs.get(user),
                warehouses.get(warehouseOf), database, topic(user));
        config.put("tasks.max", "2");
        if (user.equals("alice")) {
            // alice's group may read her files, nobody else; bob keeps Hadoop's default (022)
            config.put("fs.umask", "027");
        }
        return config;
    }

    @Test
    @Order(1)
    void twoPrincipalsInOneWorkerEachLandExactlyOnceInTheirOwnDirectoryAcrossTicketExpiries() throws Exception {
        for (String user : List.of("alice", "bob")) {
            worker.rest().putConnector(user + "-sink", connectorConfig(user, user, database(user)));
        }
        long start = System.nanoTime();
        Duration flowing = TICKET.multipliedBy(LIFETIMES).plusSeconds(10);
        while (System.nanoTime() - start < flowing.toNanos()) {
            produce("alice", 150);
            produce("bob", 100);
            Thread.sleep(5_000);
        }
        for (String user : List.of("alice", "bob")) {
            stack.awaitCommittedToEnd(user + "-sink", Duration.ofMinutes(2), List.of(topic(user)));
        }
        Duration ran = Duration.ofNanos(System.nanoTime() - start);

        for (String user : List.of("alice", "bob")) {
            assertLandedOnce(user);
            assertOwnedBy(warehouses.get(user), user);
            // both tasks of each connector renewed their own tickets, again and again
            long renewals = worker.logLines().stream()
                    .filter(l -> l.contains("Renewed the Kerberos ticket of " + stack.principal(user))).count();
            assertTrue(renewals >= 2L * (LIFETIMES - 1), user + "'s tickets renewed " + renewals
                    + " times in " + ran.toSeconds() + " s of " + TICKET.toSeconds() + " s tickets");
        }
        assertTrue(worker.logLines().stream().noneMatch(l -> l.contains("Renewing the Kerberos ticket")),
                "no renewal failed");
        System.out.printf("KerberosIT: %d + %d records landed over %d s with %d s tickets%n", produced.get("alice"),
                produced.get("bob"), ran.toSeconds(), TICKET.toSeconds());
    }

    @Test
    @Order(2)
    void aConnectorPointedAtAnotherPrincipalsDirectoryFailsNamingThePrincipalAndThePath() throws Exception {
        String connector = "bob-trespass";
        Map<String, String> config = connectorConfig("bob", "alice", "bob_trespass");
        config.put("name", connector);
        config.put("tasks.max", "1");
        worker.rest().putConnector(connector, config);
        String trace = worker.rest().awaitFailedTaskTrace(connector, Duration.ofMinutes(2));
        assertTrue(trace.contains(stack.principal("bob")), "names the principal: " + trace);
        assertTrue(trace.contains(warehouses.get("alice")), "names the path: " + trace);
        // alice's connector runs on, and nothing of bob's is in her directory
        produce("alice", 50);
        stack.awaitCommittedToEnd("alice-sink", Duration.ofMinutes(2), List.of(topic("alice")));
        assertLandedOnce("alice");
        assertOwnedBy(warehouses.get("alice"), "alice");
    }

    @Test
    @Order(3)
    void aWrongMetastorePrincipalOrAMissingKeytabFailsSayingWhatToCheck() throws Exception {
        Map<String, String> wrongServer = connectorConfig("bob", "bob", "bob_db");
        wrongServer.put("name", "bob-wrong-metastore");
        wrongServer.put("tasks.max", "1");
        wrongServer.put("hive.metastore.kerberos.principal", "metastore/_HOST@" + stack.realm());
        worker.rest().putConnector("bob-wrong-metastore", wrongServer);
        String trace = worker.rest().awaitFailedTaskTrace("bob-wrong-metastore", Duration.ofMinutes(2));
        assertTrue(trace.contains("SASL (Kerberos) handshake with the metastore") && trace.contains("as "
                + stack.principal("bob")) && trace.contains("to the service principal metastore/localhost@")
                && trace.contains("hive.metastore.kerberos.principal"), trace);
        System.out.println("KerberosIT: a wrong metastore principal fails with: " + trace.lines()
                .filter(l -> l.contains("SASL")).findFirst().orElse(trace));

        Map<String, String> noKeytab = connectorConfig("bob", "bob", "bob_db");
        noKeytab.put("name", "bob-no-keytab");
        noKeytab.put("tasks.max", "1");
        noKeytab.put("hadoop.kerberos.keytab", "/nonexistent/bob.keytab");
        worker.rest().putConnector("bob-no-keytab", noKeytab);
        trace = worker.rest().awaitFailedTaskTrace("bob-no-keytab", Duration.ofMinutes(2));
        assertTrue(trace.contains("The keytab /nonexistent/bob.keytab (hadoop.kerberos.keytab) is not a readable "
                + "file on this worker"), trace);
    }

    private void produce(String user, int count) throws Exception {
        long from = produced.getOrDefault(user, 0L);
        SampleData.produce(producer, topic(user), EVENT, from, from + count,
                seq -> new Struct(EVENT).put("seq", seq).put("who", user));
        produced.put(user, from + count);
    }

    /** The table, found through the metastore as the user sees it (over SASL), holds each record once. */
    private void assertLandedOnce(String user) throws Exception {
        List<Long> seqs = new ArrayList<>();
        Map<String, Long> ledger = new TreeMap<>();
        try (ThriftMetastore metastore = stack.metastoreAs(user, keytabs.get(user))) {
            MetastoreTableReader reader = new MetastoreTableReader(metastore, stack.fileSystem());
            for (Map<String, Object> row : reader.rows(database(user), topic(user))) {
                seqs.add((Long) row.get("seq"));
                assertEquals(user, row.get("who").toString());
            }
            for (Map<String, Object> row : reader.rows(database(user), "hive_sink_ledger")) {
                ledger.merge(row.get("table_name").toString(), (Long) row.get("record_count"), Long::sum);
            }
        }
        long expected = produced.get(user);
        assertEquals(expected, seqs.size(), user + ": every record landed, none twice");
        TreeSet<Long> distinct = new TreeSet<>(seqs);
        assertEquals(expected, distinct.size(), user + ": no record twice");
        assertEquals(expected - 1, distinct.last());
        assertEquals(Map.of(topic(user), expected), ledger, user + ": the ledger counts what landed");
    }

    /**
     * Every file and directory under {@code dir} belongs to {@code user}, the directories the metastore made for the
     * connector included, and every file has the mode its connector's umask gives.
     */
    private void assertOwnedBy(String dir, String user) throws Exception {
        short fileMode = user.equals("alice") ? (short) 0640 : (short) 0644;
        List<FileStatus> entries = new ArrayList<>();
        walk(stack.fileSystem(), new org.apache.hadoop.fs.Path(dir), entries);
        long files = 0;
        for (FileStatus entry : entries) {
            assertEquals(user, entry.getOwner(), "owner of " + entry.getPath());
            if (entry.isFile()) {
                files++;
                assertEquals(fileMode, entry.getPermission().toShort(), "mode of " + entry.getPath() + ": "
                        + entry.getPermission());
            }
        }
        assertTrue(files > 0, "files under " + dir);
    }

    private static void walk(FileSystem fs, org.apache.hadoop.fs.Path dir, List<FileStatus> into) throws Exception {
        for (FileStatus entry : fs.listStatus(dir)) {
            into.add(entry);
            if (entry.isDirectory()) {
                walk(fs, entry.getPath(), into);
            }
        }
    }
}
