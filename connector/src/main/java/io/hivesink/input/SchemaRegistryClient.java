package io.hivesink.input;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.apache.avro.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.hivesink.config.InputConfig;

/**
 * Reads writer schemas from a Confluent-compatible schema registry by id, over its documented REST API
 * ({@code GET /schemas/ids/{id}}), and keeps them: a schema id never changes meaning, so each is fetched once. Works
 * with Confluent Schema Registry, Redpanda, Karapace and Apicurio's Confluent-compatible API. Several URLs are tried in
 * order; a registry that does not answer, or answers 5xx or 429, is retried with backoff; an id the registry does not
 * know is the record's problem ({@link UnknownSchemaException}), not the registry's. Thread-safe.
 */
public final class SchemaRegistryClient {

    private static final Logger log = LoggerFactory.getLogger(SchemaRegistryClient.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * How to reach the registry and how long to wait for it.
     *
     * @param urls            registry base URLs, for example https://registry:8081
     * @param basicAuth       "user:password", or null
     * @param truststorePath  a JKS or PKCS12 trust store for https, or null for the JVM's
     * @param attempts        tries per look-up before giving up (at least 1)
     * @param firstBackoff    wait after the first failure; doubled after each, up to {@code maxBackoff}
     */
    public record Settings(List<String> urls, String basicAuth, String truststorePath, String truststorePassword,
            Duration requestTimeout, int attempts, Duration firstBackoff, Duration maxBackoff) {

        public Settings {
            if (urls == null || urls.isEmpty()) {
                throw new IllegalArgumentException("At least one schema registry URL is needed");
            }
            urls = urls.stream().map(u -> u.endsWith("/") ? u.substring(0, u.length() - 1) : u).toList();
            attempts = Math.max(1, attempts);
        }

        /** Without the secrets, so that a log line or a debugger shows no password. */
        @Override
        public String toString() {
            return "Settings[urls=" + urls + ", basicAuth=" + (basicAuth == null || basicAuth.isEmpty() ? "none"
                    : "[hidden]") + ", truststorePath=" + truststorePath + ", truststorePassword=[hidden], "
                    + "requestTimeout=" + requestTimeout + ", attempts=" + attempts + ", firstBackoff=" + firstBackoff
                    + ", maxBackoff=" + maxBackoff + "]";
        }
    }

    private final Settings settings;
    private final HttpClient http;
    private final String authorization;
    private final Map<Integer, Schema> byId = new ConcurrentHashMap<>();

    public SchemaRegistryClient(Settings settings) {
        this.settings = settings;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(settings.requestTimeout());
        if (settings.truststorePath() != null && !settings.truststorePath().isBlank()) {
            builder.sslContext(sslContext(settings.truststorePath(), settings.truststorePassword()));
        }
        this.http = builder.build();
        this.authorization = settings.basicAuth() == null || settings.basicAuth().isBlank() ? null
                : "Basic " + Base64.getEncoder().encodeToString(settings.basicAuth().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The writer schema of an id, from the cache or else the registry.
     *
     * @throws UnknownSchemaException if the registry does not know the id, or holds a schema that is not Avro
     * @throws RetriableException if no registry answered after the retries (the record must be delivered again)
     * @throws ConnectException if the registry refused the credentials
     */
    public Schema schemaById(int id) {
        Schema known = byId.get(id);
        if (known != null) {
            return known;
        }
        Schema fetched = fetch(id);
        Schema raced = byId.putIfAbsent(id, fetched);
        return raced != null ? raced : fetched;
    }

    private Schema fetch(int id) {
        long backoff = settings.firstBackoff().toMillis();
        List<String> failures = new ArrayList<>();
        for (int attempt = 1; attempt <= settings.attempts(); attempt++) {
            for (String url : settings.urls()) {
                String endpoint = url + "/schemas/ids/" + id;
                try {
                    HttpResponse<String> response = http.send(request(endpoint), HttpResponse.BodyHandlers.ofString());
                    int status = response.statusCode();
                    if (status == 200) {
                        Schema schema = parse(id, endpoint, response.body());
                        log.info("Writer schema {} is {} (from {})", id, schema.getFullName(), url);
                        return schema;
                    }
                    if (status == 404) {
                        throw new UnknownSchemaException(id, "The schema registry at " + url + " has no schema with id "
                                + id + " (" + errorMessage(response.body()) + "). The record was written against "
                                + "another registry, or its schema was deleted.");
                    }
                    if (status == 401 || status == 403) {
                        throw new ConnectException("The schema registry at " + url + " refused the request for "
                                + "schema " + id + " (HTTP " + status + ": " + errorMessage(response.body()) + "). "
                                + "Check " + InputConfig.SCHEMA_REGISTRY_BASIC_AUTH + " (user:password; "
                                + (authorization == null ? "not set"
                                        : "set, value not shown") + ") and that this user may read schemas.");
                    }
                    failures.add(endpoint + ": HTTP " + status + " " + errorMessage(response.body()));
                } catch (IOException e) {
                    failures.add(endpoint + ": " + e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ConnectException("Interrupted while fetching schema " + id, e);
                }
            }
            if (attempt < settings.attempts()) {
                log.warn("Schema registry did not give schema {} (attempt {} of {}): {}; retrying in {} ms", id,
                        attempt, settings.attempts(), failures.get(failures.size() - 1), backoff);
                sleep(backoff);
                backoff = Math.min(backoff * 2, settings.maxBackoff().toMillis());
            }
        }
        throw new RetriableException("No schema registry gave schema " + id + " after " + settings.attempts()
                + " attempts: " + String.join("; ", failures.subList(Math.max(0, failures.size() - 3),
                failures.size())) + ". The record is not taken: it stays in Kafka and Connect delivers it again.");
    }

    private HttpRequest request(String endpoint) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(endpoint)).timeout(settings.requestTimeout())
                .header("Accept", "application/vnd.schemaregistry.v1+json, application/json").GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return request.build();
    }

    private static Schema parse(int id, String endpoint, String body) {
        try {
            JsonNode node = JSON.readTree(body);
            String type = node.path("schemaType").asText("AVRO");
            if (!"AVRO".equals(type)) {
                throw new UnknownSchemaException(id, "Schema " + id + " at " + endpoint + " is a " + type
                        + " schema, not Avro: this connector reads Avro records.");
            }
            JsonNode schema = node.get("schema");
            if (schema == null || !schema.isTextual()) {
                throw new ConnectException("The schema registry answered " + endpoint + " without a schema: " + body);
            }
            return new Schema.Parser().setValidateDefaults(false).parse(schema.asText());
        } catch (IOException e) {
            throw new ConnectException("The schema registry answered " + endpoint + " with something that is not "
                    + "JSON: " + e.getMessage(), e);
        } catch (org.apache.avro.SchemaParseException e) {
            throw new UnknownSchemaException(id, "Schema " + id + " at " + endpoint + " is not a valid Avro schema: "
                    + e.getMessage());
        }
    }

    private static String errorMessage(String body) {
        try {
            JsonNode node = JSON.readTree(body);
            if (node.has("message")) {
                return node.get("error_code").asText("") + " " + node.get("message").asText();
            }
        } catch (IOException | RuntimeException e) {
            // not the registry's JSON error: show the start of the body
        }
        return body == null ? "" : body.length() > 200 ? body.substring(0, 200) + "..." : body;
    }

    private static SSLContext sslContext(String path, String password) {
        try (InputStream in = Files.newInputStream(Path.of(path))) {
            KeyStore store = KeyStore.getInstance(path.endsWith(".jks") ? "JKS" : "PKCS12");
            store.load(in, password == null ? null : password.toCharArray());
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new ConnectException("Cannot read the schema registry trust store " + path + ": " + e.getMessage(),
                    e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while waiting to retry the schema registry", e);
        }
    }
}
