package io.hivesink.stack.connect;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.hivesink.stack.EmbeddedStack;

/** The few Connect REST calls the tests make, with the retries a forming cluster needs. */
public final class ConnectRest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String baseUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public ConnectRest(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    public String baseUrl() {
        return baseUrl;
    }

    boolean isUp() {
        try {
            return send(HttpRequest.newBuilder(URI.create(baseUrl + "connectors")).GET()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    /** Creates or updates a connector; retried while the worker's group is still forming (409). */
    public void putConnector(String name, Map<String, String> config) throws IOException, InterruptedException {
        String body = JSON.writeValueAsString(config);
        HttpResponse<String> response = sendWhileRebalancing(() -> HttpRequest.newBuilder(URI.create(baseUrl
                + "connectors/" + name + "/config")).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)), System.nanoTime() + Duration.ofSeconds(60).toNanos());
        if (response.statusCode() != 200 && response.statusCode() != 201) {
            throw new IOException("PUT connector " + name + ": " + response.statusCode() + " " + response.body());
        }
    }

    /** Sends a request again while the worker answers 409 (its group is forming or rebalancing), until a deadline. */
    private HttpResponse<String> sendWhileRebalancing(Supplier<HttpRequest.Builder> request, long deadlineNanos)
            throws IOException, InterruptedException {
        while (true) {
            HttpResponse<String> response = send(request.get());
            if (response.statusCode() != 409 || System.nanoTime() > deadlineNanos) {
                return response;
            }
            Thread.sleep(500);
        }
    }

    /**
     * Deletes a connector, retried while the worker's group rebalances (409), and waits until the worker no longer
     * lists it: by then its tasks were asked to stop (one that overruns the worker's task shutdown timeout is left
     * to end on its own).
     */
    public void deleteConnector(String name, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpResponse<String> response = sendWhileRebalancing(() -> HttpRequest.newBuilder(URI.create(baseUrl
                + "connectors/" + name)).DELETE(), deadline);
        if (response.statusCode() / 100 != 2 && response.statusCode() != 404) {
            throw new IOException("DELETE connector " + name + ": " + response.statusCode() + " " + response.body());
        }
        while (status(name) != null) {
            if (System.nanoTime() > deadline) {
                throw new IOException("connector " + name + " still listed " + timeout.toSeconds()
                        + " s after its DELETE");
            }
            Thread.sleep(100);
        }
    }

    /** {@code GET /}: the worker's Kafka version. */
    public String workerVersion() throws IOException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(baseUrl)).GET());
        if (response.statusCode() != 200) {
            throw new IOException("GET /: " + response.statusCode() + " " + response.body());
        }
        return JSON.readTree(response.body()).path("version").asText();
    }

    /** {@code GET /connector-plugins}: the connector plugins the worker found, with their versions. */
    public JsonNode connectorPlugins() throws IOException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(baseUrl + "connector-plugins")).GET());
        if (response.statusCode() != 200) {
            throw new IOException("GET connector-plugins: " + response.statusCode() + " " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** {@code PUT /connector-plugins/<class>/config/validate}: the worker's and the connector's checks. */
    public JsonNode validate(String connectorClass, Map<String, String> config) throws IOException {
        String simpleName = connectorClass.substring(connectorClass.lastIndexOf('.') + 1);
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(baseUrl + "connector-plugins/"
                + simpleName + "/config/validate")).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config))));
        if (response.statusCode() != 200) {
            throw new IOException("Validate " + connectorClass + ": " + response.statusCode() + " " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** The connector's status document, or null if the worker does not know the connector (yet). */
    public JsonNode status(String name) throws IOException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(baseUrl + "connectors/" + name
                + "/status")).GET());
        if (response.statusCode() == 404) {
            return null;
        }
        if (response.statusCode() != 200) {
            throw new IOException("GET status of " + name + ": " + response.statusCode() + " " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** The body of {@code GET <base>/<path>}, whatever its status, as a user's curl shows it. */
    public String get(String path) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET()).body();
    }

    /** Waits for a task of the connector to fail and returns its trace. */
    public String awaitFailedTaskTrace(String connector, Duration timeout) throws InterruptedException {
        String[] trace = new String[1];
        EmbeddedStack.await("a task of " + connector + " to fail", timeout, () -> {
            JsonNode status = EmbeddedStack.unchecked(() -> status(connector));
            if (status == null) {
                return false;
            }
            for (JsonNode task : status.path("tasks")) {
                if ("FAILED".equals(task.path("state").asText())) {
                    trace[0] = task.path("trace").asText();
                    return true;
                }
            }
            return false;
        });
        return trace[0];
    }

    public void restartTask(String name, int task) throws IOException {
        post("connectors/" + name + "/tasks/" + task + "/restart", "Restart task " + task + " of " + name);
    }

    /** Restarts the connector and all its tasks, running or not: each task is stopped and started again. */
    public void restartConnectorAndTasks(String name) throws IOException {
        post("connectors/" + name + "/restart?includeTasks=true&onlyFailed=false", "Restart " + name);
    }

    private void post(String path, String what) throws IOException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(baseUrl + path))
                .POST(HttpRequest.BodyPublishers.noBody()));
        if (response.statusCode() / 100 != 2) {
            throw new IOException(what + ": " + response.statusCode() + " " + response.body());
        }
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException {
        try {
            return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
