package io.hivesink.stack.trino;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Statements sent to Trino over its client protocol ({@code POST /v1/statement}, then each {@code nextUri} until
 * there is none), rows gathered as Trino's JSON gives them: each value as text, null as null, arrays, maps and rows
 * as their JSON.
 */
public final class TrinoSql {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    /**
     * A server just started schedules a catalog's splits only once its node has announced the catalog (a few
     * seconds); until then a query that reads a table fails with NO_NODES_AVAILABLE, and is sent again.
     */
    private static final Duration NODES_WAIT = Duration.ofMinutes(1);

    private final URI server;
    private final String user;
    private final String catalog;
    private final String schema;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    TrinoSql(URI server, String user, String catalog, String schema) {
        this.server = server;
        this.user = user;
        this.catalog = catalog;
        this.schema = schema;
    }

    /**
     * Runs one statement and returns its rows, sending it again while the server has no node for it yet.
     *
     * @throws TrinoException with Trino's message if it failed the query
     */
    public List<List<String>> query(String sql) {
        long waitUntil = System.nanoTime() + NODES_WAIT.toNanos();
        while (true) {
            try {
                return queryOnce(sql);
            } catch (TrinoException e) {
                if (!e.getMessage().contains("(NO_NODES_AVAILABLE)") || System.nanoTime() > waitUntil) {
                    throw e;
                }
                try {
                    Thread.sleep(500);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private List<List<String>> queryOnce(String sql) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        List<List<String>> rows = new ArrayList<>();
        try {
            JsonNode page = send(HttpRequest.newBuilder(server.resolve("/v1/statement"))
                    .POST(HttpRequest.BodyPublishers.ofString(sql, StandardCharsets.UTF_8)), sql);
            while (true) {
                if (page.hasNonNull("error")) {
                    throw new TrinoException(sql, page.get("error").path("message").asText()
                            + " (" + page.get("error").path("errorName").asText() + ")");
                }
                for (JsonNode row : page.path("data")) {
                    List<String> values = new ArrayList<>(row.size());
                    row.forEach(value -> values.add(value.isNull() ? null
                            : value.isValueNode() ? value.asText() : value.toString()));
                    rows.add(values);
                }
                JsonNode next = page.get("nextUri");
                if (next == null || next.isNull()) {
                    return rows;
                }
                if (System.nanoTime() > deadline) {
                    throw new TrinoException(sql, "no answer within " + TIMEOUT.toMinutes() + " minutes");
                }
                page = send(HttpRequest.newBuilder(URI.create(next.asText())).GET(), sql);
            }
        } catch (IOException e) {
            throw new TrinoException(sql, "the server at " + server + " failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TrinoException(sql, "interrupted");
        }
    }

    private JsonNode send(HttpRequest.Builder request, String sql) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request.timeout(Duration.ofMinutes(2))
                .header("X-Trino-User", user).header("X-Trino-Catalog", catalog).header("X-Trino-Schema", schema)
                .header("X-Trino-Time-Zone", "UTC").build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new TrinoException(sql, "HTTP " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** A statement Trino refused or failed, with its words. */
    public static final class TrinoException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TrinoException(String sql, String message) {
            super("Trino: " + message + ". Statement: " + sql);
        }
    }
}
