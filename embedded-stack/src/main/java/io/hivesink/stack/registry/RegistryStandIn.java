package io.hivesink.stack.registry;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A test stand-in for Confluent Schema Registry: a minimal HTTP server on 127.0.0.1 that implements only these calls
 * of the registry's documented REST API, for Avro schemas:
 * <ul>
 * <li>{@code POST /subjects/{subject}/versions} (body {@code {"schema": "...", "schemaType"?: "AVRO",
 * "references"?: []}}, any query string such as {@code ?normalize=false}): registers the schema and answers
 * {@code {"id": N}}. As in the real registry, an id names a schema, not a subject: the same schema under any subject
 * gets the same id. Schemas are compared in Avro's parsed form ({@link Schema#toString()}), so whitespace and the
 * order of JSON attributes do not make a new schema. This is the only call Confluent's serializers (Java, and the
 * Python client's {@code AvroSerializer} with {@code auto.register.schemas}) make before they produce.</li>
 * <li>{@code GET /schemas/ids/{id}}: answers {@code {"schema": "..."}}, or 404 with
 * {@code {"error_code":40403,"message":"Schema not found"}} for an id it does not know. This is how readers (the
 * connector) fetch a writer schema.</li>
 * </ul>
 * Ids start at 1. Every other request gets a 404 in the registry's error format
 * ({@code {"error_code":404,"message":"HTTP 404 Not Found ..."}}), as a registry answers a path it does not have. That
 * includes the one other call the Python client ({@code confluent-kafka} 2.16) makes on first use: its default subject
 * name strategy first asks {@code GET /associations/resources/-/{topic}?resourceType=topic&associationType=value},
 * takes a 404 as "no association" and falls back to the topic name strategy ({@code {topic}-value}), which is what a
 * registry without the associations API gets too. {@link #setDown} makes every call answer 503, to test an outage.
 * <p>
 * It exists because no real Confluent-API registry can be installed on the machines this project builds on
 * (Confluent's artifacts are not on Maven Central, the Apicurio server cannot be built from the mirror, karapace is not
 * on PyPI: see STACK.md, "Schema registry"). It is not a registry: no compatibility checks, no deletes, no versions
 * API, no contexts, no schema references, no persistence.
 */
public final class RegistryStandIn implements AutoCloseable {

    public static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern REGISTER = Pattern.compile("/subjects/([^/]+)/versions/?");
    private static final Pattern BY_ID = Pattern.compile("/schemas/ids/(-?\\d+)/?");

    private final Object lock = new Object();
    private final Map<String, Integer> idsBySchema = new HashMap<>();
    private final Map<Integer, String> schemasById = new HashMap<>();
    private final Map<String, List<Integer>> versionsBySubject = new LinkedHashMap<>();
    private final List<String> requests = new ArrayList<>();
    private volatile boolean down;
    private volatile String requiredAuthorization;
    private HttpServer server;
    private ExecutorService executor;

    /** Starts answering on 127.0.0.1, on a free port ({@link #url()}). */
    public synchronized RegistryStandIn start() throws IOException {
        if (server != null) {
            throw new IllegalStateException("already started at " + url());
        }
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        AtomicInteger threads = new AtomicInteger();
        executor = Executors.newFixedThreadPool(4, r -> {
            Thread thread = new Thread(r, "registry-stand-in-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        http.setExecutor(executor);
        http.createContext("/", this::handle);
        http.start();
        server = http;
        return this;
    }

    /** Base URL, for example {@code http://127.0.0.1:40123}, as {@code schema.registry.url} takes it. */
    public synchronized String url() {
        if (server == null) {
            throw new IllegalStateException("not started");
        }
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /**
     * Registers an Avro schema under a subject, as {@code POST /subjects/{subject}/versions} does, and returns its id.
     * Works while {@linkplain #setDown down} too: it is the test's own door, not the HTTP API.
     */
    public int register(String subject, String schemaJson) {
        return registerAvro(subject, schemaJson);
    }

    /**
     * From now on, answers 401 to every request that does not carry HTTP basic authentication with {@code userInfo}
     * ({@code user:password}), as a registry with authentication on does.
     */
    public void requireBasicAuth(String userInfo) {
        requiredAuthorization = "Basic " + java.util.Base64.getEncoder()
                .encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
    }

    /** While down, every request is answered 503 (the registry is unavailable); nothing is forgotten. */
    public void setDown(boolean down) {
        this.down = down;
    }

    /** The requests received so far, as {@code "METHOD /path?query -> status"}, in arrival order. */
    public List<String> requests() {
        synchronized (lock) {
            return List.copyOf(requests);
        }
    }

    /** The ids registered under a subject, in order of registration. */
    public List<Integer> versions(String subject) {
        synchronized (lock) {
            return List.copyOf(versionsBySubject.getOrDefault(subject, List.of()));
        }
    }

    /** The schema text stored under an id (the parsed form), or null. */
    public String schema(int id) {
        synchronized (lock) {
            return schemasById.get(id);
        }
    }

    @Override
    public synchronized void close() {
        if (server != null) {
            server.stop(0);
            executor.shutdownNow();
            server = null;
        }
    }

    private int registerAvro(String subject, String schemaJson) {
        String parsed = new Schema.Parser().parse(schemaJson).toString();
        synchronized (lock) {
            Integer id = idsBySchema.get(parsed);
            if (id == null) {
                id = idsBySchema.size() + 1;
                idsBySchema.put(parsed, id);
                schemasById.put(id, parsed);
            }
            List<Integer> versions = versionsBySubject.computeIfAbsent(subject, s -> new ArrayList<>());
            if (!versions.contains(id)) {
                versions.add(id);
            }
            return id;
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        int status;
        try (exchange) {
            String method = exchange.getRequestMethod();
            URI uri = exchange.getRequestURI();
            String path = uri.getRawPath();
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Reply reply;
            try {
                String required = requiredAuthorization;
                if (down) {
                    reply = error(503, 50301, "The schema registry stand-in is down (setDown(true))");
                } else if (required != null
                        && !required.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                    reply = error(401, 401, "Unauthorized");
                } else {
                    reply = route(method, path, body);
                }
            } catch (RuntimeException e) {
                reply = error(500, 50001, "Error in the schema registry stand-in: " + e);
            }
            status = reply.status;
            synchronized (lock) {
                requests.add(method + " " + path + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())
                        + " -> " + status);
            }
            byte[] out = JSON.writeValueAsBytes(reply.body);
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            exchange.sendResponseHeaders(status, out.length);
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(out);
            }
        }
    }

    private Reply route(String method, String path, byte[] body) {
        Matcher register = REGISTER.matcher(path);
        if (register.matches()) {
            if (!"POST".equals(method)) {
                return error(405, 405, "HTTP 405 Method Not Allowed (the stand-in implements only POST here)");
            }
            return register(java.net.URLDecoder.decode(register.group(1), StandardCharsets.UTF_8), body);
        }
        Matcher byId = BY_ID.matcher(path);
        if (byId.matches()) {
            if (!"GET".equals(method)) {
                return error(405, 405, "HTTP 405 Method Not Allowed");
            }
            String schema;
            try {
                schema = schema(Integer.parseInt(byId.group(1)));
            } catch (NumberFormatException e) {
                schema = null;
            }
            if (schema == null) {
                return error(404, 40403, "Schema not found");
            }
            ObjectNode reply = JSON.createObjectNode();
            reply.put("schema", schema);
            return new Reply(200, reply);
        }
        return error(404, 404, "HTTP 404 Not Found (the stand-in implements only POST /subjects/{subject}/versions "
                + "and GET /schemas/ids/{id})");
    }

    private Reply register(String subject, byte[] body) {
        JsonNode request;
        try {
            request = JSON.readTree(body);
        } catch (IOException e) {
            return error(400, 400, "Unrecognized request body: " + e.getMessage());
        }
        if (request == null || !request.path("schema").isTextual()) {
            return error(422, 42201, "Invalid schema: the body has no \"schema\" string");
        }
        String type = request.path("schemaType").asText("AVRO");
        if (!"AVRO".equals(type)) {
            return error(422, 42201, "Invalid schema: the stand-in takes only AVRO schemas, not " + type);
        }
        if (request.path("references").size() > 0) {
            return error(422, 42201, "Invalid schema: the stand-in does not implement schema references");
        }
        try {
            ObjectNode reply = JSON.createObjectNode();
            reply.put("id", registerAvro(subject, request.get("schema").asText()));
            return new Reply(200, reply);
        } catch (SchemaParseException e) {
            return error(422, 42201, "Invalid schema: " + e.getMessage());
        }
    }

    private static Reply error(int status, int code, String message) {
        ObjectNode body = JSON.createObjectNode();
        body.put("error_code", code);
        body.put("message", message);
        return new Reply(status, body);
    }

    private record Reply(int status, JsonNode body) {
    }
}
