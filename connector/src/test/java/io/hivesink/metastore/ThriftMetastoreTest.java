package io.hivesink.metastore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.GetTableRequest;
import org.apache.hadoop.hive.metastore.api.GetTableResult;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's handling of what differs between metastore releases and of broken connections, against a fake
 * server on the real Thrift wire protocol. The calls themselves are run against real 2.3, 3.1 and 4.0 metastores by
 * the integration tests (MetastoreCompatibility).
 */
class ThriftMetastoreTest {

    /** What every release answers: a connection's first calls. */
    private static Map<String, FakeThriftMetastore.Answer> base(String version) {
        Map<String, FakeThriftMetastore.Answer> answers = new HashMap<>();
        answers.put("set_ugi", args -> List.of(args[0]));
        answers.put("getVersion", args -> version);
        answers.put("get_database", args -> {
            if (!"sales".equals(args[0])) {
                throw new NoSuchObjectException(args[0] + " not found");
            }
            return new Database("sales", "", "hdfs://nn/warehouse/sales.db", Map.of());
        });
        return answers;
    }

    private static ThriftMetastore connect(String... uris) {
        return ThriftMetastore.connect(new MetastoreSettings(List.of(uris), false, "", ""));
    }

    @Test
    void tellsHive4FromHive3FromHive2() throws IOException {
        Map<String, FakeThriftMetastore.Answer> hive3 = base("3.0");
        hive3.put("get_catalogs", args -> new org.apache.hadoop.hive.metastore.api.GetCatalogsResponse(
                List.of("hive")));
        try (FakeThriftMetastore four = new FakeThriftMetastore(base("4.0.1"));
                FakeThriftMetastore three = new FakeThriftMetastore(hive3);
                FakeThriftMetastore two = new FakeThriftMetastore(base("3.0"));
                ThriftMetastore client4 = connect(four.uri());
                ThriftMetastore client3 = connect(three.uri());
                ThriftMetastore client2 = connect(two.uri())) {
            assertEquals("4.0.1", client4.server().release());
            assertEquals("3.x", client3.server().release());
            assertEquals("2.x", client2.server().release());
            assertEquals("Hive metastore 2.x at " + two.uri() + " (getVersion says 3.0; no catalog API, so older "
                    + "than Hive 3)", client2.server().describe());
            assertEquals(0, four.counter("get_catalogs").get(), "Hive 4 says which release it is");
        }
    }

    @Test
    void aCallTheServerDoesNotServeStopsTheTaskNamingTheServerTheCallAndTheFix() throws IOException {
        try (FakeThriftMetastore old = new FakeThriftMetastore(base("3.0"));
                ThriftMetastore client = connect(old.uri())) {
            assertTrue(client.databaseExists("sales"));
            UnsupportedMetastoreException e = assertThrows(UnsupportedMetastoreException.class,
                    () -> client.getTable("sales", "orders"));
            assertEquals("The Hive metastore 2.x at " + old.uri() + " (getVersion says 3.0; no catalog API, so older "
                    + "than Hive 3) does not serve the Thrift call get_table_req (asked for sales.orders), which "
                    + "hive-sink needs. hive-sink supports Hive metastore 2.3.x, 3.1.x and 4.0.x: set "
                    + "hive.metastore.uris to one of those, or upgrade this metastore.", e.getMessage());
            assertTrue(client.databaseExists("sales"), "the connection is still usable");
        }
    }

    @Test
    void aBrokenConnectionIsReopenedAndTheCallRepeated() throws IOException {
        Map<String, FakeThriftMetastore.Answer> answers = base("4.0.1");
        Table orders = new Table();
        orders.setDbName("sales");
        orders.setTableName("orders");
        AtomicReference<GetTableRequest> asked = new AtomicReference<>();
        answers.put("get_table_req", args -> {
            asked.set((GetTableRequest) args[0]);
            return new GetTableResult(orders);
        });
        try (FakeThriftMetastore server = new FakeThriftMetastore(answers);
                ThriftMetastore client = connect(server.uri())) {
            assertEquals("orders", client.getTable("sales", "orders").orElseThrow().getTableName());
            server.dropConnections();
            assertEquals("orders", client.getTable("sales", "orders").orElseThrow().getTableName());
            assertEquals(2, server.counter("set_ugi").get(), "a second connection was opened");
            assertEquals(2, server.counter("get_table_req").get(), "answered once on each connection");
            assertFalse(asked.get().isSetCatName(), "no catalog in the request: 2.3 servers have none");
        }
    }

    @Test
    void aLockedWriteWhoseAnswerIsCutSaysItMayHaveLandedAndOneNeverSentDoesNot() throws IOException {
        Map<String, FakeThriftMetastore.Answer> answers = base("4.0.1");
        AtomicReference<FakeThriftMetastore> fake = new AtomicReference<>();
        AtomicReference<String> heartbeatFailure = new AtomicReference<>();
        answers.put("heartbeat", args -> {
            if (heartbeatFailure.get() != null) {
                throw new org.apache.hadoop.hive.metastore.api.MetaException(heartbeatFailure.get());
            }
            return null;
        });
        answers.put("alter_table_with_environment_context", args -> {
            fake.get().dropConnections(); // the write runs; the connection breaks before its answer
            return null;
        });
        Table state = new Table();
        state.setDbName("sales");
        state.setTableName("hive_sink_state_0");
        try (FakeThriftMetastore server = new FakeThriftMetastore(answers);
                ThriftMetastore client = connect(server.uri())) {
            fake.set(server);
            MetastoreAnswerLostException lost = assertThrows(MetastoreAnswerLostException.class,
                    () -> client.alterTableUnderLock(7, state, false));
            assertTrue(lost.getMessage().contains("alter_table_with_environment_context"), lost.getMessage());
            assertEquals(1, server.counter("alter_table_with_environment_context").get(), "sent once, not again");

            heartbeatFailure.set("Lock wait timeout exceeded; try restarting transaction");
            MetastoreException failed = assertThrows(MetastoreException.class,
                    () -> client.alterTableUnderLock(7, state, false));
            assertFalse(failed instanceof MetastoreAnswerLostException, "the write was never sent: " + failed);
            assertEquals(1, server.counter("alter_table_with_environment_context").get());
        }
    }

    @Test
    void connectsToTheNextUriWhenOneIsDown() throws IOException {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        try (FakeThriftMetastore server = new FakeThriftMetastore(base("4.0.1"));
                ThriftMetastore client = connect("thrift://127.0.0.1:" + closedPort, server.uri())) {
            assertEquals(server.uri(), client.server().uri());
            assertFalse(client.databaseExists("missing"));
        }
    }

    @Test
    void noReachableMetastoreIsARetriableErrorThatSaysWhatToCheck() throws IOException {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        String uri = "thrift://127.0.0.1:" + closedPort;
        MetastoreException e = assertThrows(MetastoreException.class, () -> connect(uri));
        assertTrue(e.getMessage().startsWith("Cannot connect to the Hive metastore at " + uri + " ("),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("Check hive.metastore.uris and that the metastore is running."),
                e.getMessage());
    }

    /**
     * A URI naming another service's port: its answer is not read as a length to allocate (a first word that Thrift
     * without strict reads takes for a method name's length, up to the 1 GB message bound), nor waited on.
     */
    @Test
    void aServerThatDoesNotSpeakTheMetastoresProtocolIsRefusedAtOnce() throws Exception {
        try (ServerSocket other = new ServerSocket(0)) {
            List<java.net.Socket> clients = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread service = new Thread(() -> {
                try {
                    while (true) {
                        java.net.Socket client = other.accept();
                        clients.add(client);
                        // a length-prefixed answer of some other protocol, of which only the length ever comes
                        client.getOutputStream().write(new byte[] {0x00, 0x10, 0x00, 0x00});
                        client.getOutputStream().flush();
                    }
                } catch (IOException e) {
                    // the test is over
                }
            });
            service.setDaemon(true);
            service.start();
            String uri = "thrift://127.0.0.1:" + other.getLocalPort();
            MetastoreException e = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                    java.time.Duration.ofSeconds(10), () -> assertThrows(MetastoreException.class, () -> connect(uri)));
            assertTrue(e.getMessage().contains(uri), e.getMessage());
            for (java.net.Socket client : clients) {
                client.close();
            }
        }
    }

    @Test
    void aUriThatIsNotThriftHostPortIsRefusedBeforeAnyConnection() {
        org.apache.kafka.connect.errors.ConnectException e = assertThrows(
                org.apache.kafka.connect.errors.ConnectException.class, () -> connect("localhost:9083"));
        assertEquals("Invalid Hive metastore URI 'localhost:9083' in hive.metastore.uris: expected "
                + "thrift://host:port.", e.getMessage());
    }

    @Test
    void talksTlsWithTheConfiguredTrustStoreAndRefusesAServerItDoesNotTrust(@TempDir Path dir) throws Exception {
        TlsFiles trusted = TlsFiles.create(dir, "metastore");
        TlsFiles stranger = TlsFiles.create(dir, "stranger");
        try (FakeThriftMetastore server = new FakeThriftMetastore(base("4.0.1"), trusted.serverContext());
                FakeThriftMetastore impostor = new FakeThriftMetastore(base("4.0.1"), stranger.serverContext())) {
            MetastoreSettings tls = new MetastoreSettings(List.of(server.uri()), true, trusted.trustStore().toString(),
                    trusted.trustStorePassword());
            try (ThriftMetastore client = ThriftMetastore.connect(tls)) {
                assertEquals("4.0.1", client.server().release());
                assertTrue(client.databaseExists("sales"));
            }
            MetastoreSettings wrongServer = new MetastoreSettings(List.of(impostor.uri()), true,
                    trusted.trustStore().toString(), trusted.trustStorePassword());
            MetastoreException e = assertThrows(MetastoreException.class, () -> ThriftMetastore.connect(wrongServer));
            assertTrue(e.getMessage().startsWith("Cannot connect to the Hive metastore at " + impostor.uri()),
                    e.getMessage());
            assertEquals(0, impostor.counter("set_ugi").get(),
                    "nothing was sent to a server the client does not trust");
        }
    }

    @Test
    void aSaslConnectionOpensAsTheTasksIdentityAndAFailedHandshakeSaysWhatToCheck() throws IOException {
        try (FakeThriftMetastore plain = new FakeThriftMetastore(base("4.0.1"))) {
            MetastoreSettings sasl = new MetastoreSettings(List.of(plain.uri()), false, "", "",
                    "hive/_HOST@EXAMPLE.COM", "auth", io.hivesink.security.TaskIdentity.WORKER);
            MetastoreException e = assertThrows(MetastoreException.class, () -> ThriftMetastore.connect(sasl));
            assertTrue(e.getMessage().startsWith("SASL (Kerberos) handshake with the metastore at " + plain.uri()
                    + " as the worker's user to the service principal hive/"), e.getMessage());
            assertTrue(e.getMessage().contains("@EXAMPLE.COM failed: "), e.getMessage());
            assertTrue(e.getMessage().contains("metastore.sasl.enabled=true")
                    && e.getMessage().contains("hadoop.kerberos.principal"), e.getMessage());
            assertEquals(0, plain.counter("set_ugi").get(), "no user is announced over SASL");
        }
    }
}
