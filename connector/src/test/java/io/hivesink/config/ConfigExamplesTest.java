package io.hivesink.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.hivesink.HiveSinkConnector;

/** Every connector example in {@code config/} passes the connector's own validation, as a user would paste it. */
class ConfigExamplesTest {

    private static final Path CONFIG_DIR = Path.of("..", "config");

    @Test
    void everyConnectorExampleValidates() throws IOException {
        List<Path> examples;
        try (Stream<Path> files = Files.list(CONFIG_DIR)) {
            examples = files.filter(f -> f.getFileName().toString().startsWith("hive-sink")).sorted().toList();
        }
        assertTrue(examples.size() >= 4, "examples in " + CONFIG_DIR.toAbsolutePath() + ": " + examples);
        for (Path example : examples) {
            Map<String, String> config = read(example);
            assertEquals("io.hivesink.HiveSinkConnector", config.get("connector.class"), example.toString());
            Config result = new HiveSinkConnector().validate(config);
            List<String> errors = new ArrayList<>();
            for (ConfigValue value : result.configValues()) {
                value.errorMessages().forEach(message -> errors.add(value.name() + ": " + message));
            }
            assertEquals(List.of(), errors, example + " validates");
        }
    }

    private static Map<String, String> read(Path example) throws IOException {
        Map<String, String> config = new LinkedHashMap<>();
        if (example.toString().endsWith(".json")) {
            JsonNode root = new ObjectMapper().readTree(example.toFile());
            root.path("config").properties().forEach(e -> config.put(e.getKey(), e.getValue().asText()));
            config.put("name", root.path("name").asText());
        } else {
            Properties properties = new Properties();
            try (Reader in = Files.newBufferedReader(example, StandardCharsets.UTF_8)) {
                properties.load(in);
            }
            properties.stringPropertyNames().forEach(k -> config.put(k, properties.getProperty(k)));
        }
        return config;
    }
}
