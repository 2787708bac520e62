package io.hivesink.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.avro.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;

/**
 * The client against a stand-in that speaks the registry's documented {@code GET /schemas/ids/{id}} (a narrow seam:
 * the integration tests of issue 6 use a registry over real HTTP from the connector's worker).
 */
class SchemaRegistryClientTest {

    static final String ORDER =
            "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}";

    private final List<HttpServer> servers = new ArrayList<>();
    private final Map<Integer, String> schemas = new ConcurrentHashMap<>(Map.of(7, ORDER));
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger failuresToGive = new AtomicInteger();
    private final List<String> authorizations = Collections.synchronizedList(new ArrayList<>());
    private volatile String requiredAuthorization;

    @AfterEach
    void stop() {
        servers.forEach(s -> s.stop(0));
    }

    private String registry() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/schemas/ids/", exchange -> {
            requests.incrementAndGet();
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            authorizations.add(auth);
            int id = Integer.parseInt(exchange.getRequestURI().getPath().substring("/schemas/ids/".length()));
            String body;
            int status;
            if (requiredAuthorization != null && !requiredAuthorization.equals(auth)) {
                status = 401;
                body = "{\"error_code\":401,\"message\":\"Unauthorized\"}";
            } else if (failuresToGive.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                status = 503;
                body = "{\"error_code\":50301,\"message\":\"busy\"}";
            } else if (schemas.containsKey(id)) {
                status = 200;
                body = new ObjectMapper().writeValueAsString(Map.of("schema", schemas.get(id)));
            } else {
                status = 404;
                body = "{\"error_code\":40403,\"message\":\"Schema " + id + " not found\"}";
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/vnd.schemaregistry.v1+json");
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
        servers.add(server);
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    private static SchemaRegistryClient client(List<String> urls, String basicAuth, int attempts) {
        return new SchemaRegistryClient(new SchemaRegistryClient.Settings(urls, basicAuth, null, null,
                Duration.ofSeconds(2), attempts, Duration.ofMillis(10), Duration.ofMillis(40)));
    }

    @Test
    void itsSettingsPrintNoSecret() {
        String text = new SchemaRegistryClient.Settings(List.of("https://registry:8081"), "reader:s3cret-auth",
                "/etc/ts.p12", "s3cret-store", Duration.ofSeconds(2), 3, Duration.ofMillis(10), Duration.ofMillis(40))
                .toString();
        assertTrue(text.contains("https://registry:8081") && text.contains("/etc/ts.p12"), text);
        assertFalse(text.contains("s3cret"), text);
    }

    @Test
    void fetchesASchemaOnceAndKeepsIt() throws Exception {
        SchemaRegistryClient client = client(List.of(registry()), null, 3);
        Schema schema = client.schemaById(7);
        assertEquals("Order", schema.getName());
        client.schemaById(7);
        client.schemaById(7);
        assertEquals(1, requests.get());
    }

    @Test
    void anUnknownIdIsTheRecordsProblemAndNamesTheId() throws Exception {
        SchemaRegistryClient client = client(List.of(registry()), null, 3);
        UnknownSchemaException e = assertThrows(UnknownSchemaException.class, () -> client.schemaById(99));
        assertEquals(99, e.schemaId());
        assertTrue(e.getMessage().contains("no schema with id 99") && e.getMessage().contains("40403"),
                e.getMessage());
        assertEquals(1, requests.get(), "a 404 is not retried");
        schemas.put(8, "{\"type\":\"string\"}");
        schemas.put(9, "syntax = \"proto3\";");
        assertThrows(UnknownSchemaException.class, () -> client.schemaById(9));
    }

    @Test
    void aBusyRegistryIsRetriedAndADeadOneFailsTheTaskNotTheRecord() throws Exception {
        SchemaRegistryClient client = client(List.of(registry()), null, 4);
        failuresToGive.set(2);
        assertEquals("Order", client.schemaById(7).getName());
        assertEquals(3, requests.get(), "two 503s, then the schema");

        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        SchemaRegistryClient down = client(List.of("http://127.0.0.1:" + closedPort), null, 3);
        ConnectException e = assertThrows(org.apache.kafka.connect.errors.RetriableException.class,
                () -> down.schemaById(7), "an outage is retried by Connect, never a bad record");
        assertTrue(e.getMessage().contains("after 3 attempts")
                && e.getMessage().contains("127.0.0.1:" + closedPort), e.getMessage());
    }

    @Test
    void theNextUrlIsTriedWhenOneIsDown() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        SchemaRegistryClient client = client(List.of("http://127.0.0.1:" + closedPort, registry()), null, 1);
        assertEquals("Order", client.schemaById(7).getName());
    }

    @Test
    void sendsBasicAuthAndExplainsARefusal() throws Exception {
        requiredAuthorization = "Basic dXNlcjpzM2NyZXQ=";
        String url = registry();
        assertEquals("Order", client(List.of(url), "user:s3cret", 1).schemaById(7).getName());
        assertEquals(requiredAuthorization, authorizations.get(0));
        ConnectException refused = assertThrows(ConnectException.class,
                () -> client(List.of(url), "user:wrong", 3).schemaById(7));
        String message = refused.getMessage();
        assertTrue(message.contains("HTTP 401") && message.contains("schema.registry.basic.auth.user.info"), message);
        assertFalse(message.contains("wrong"), "the value given is not shown: " + message);
    }
}
