package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;

import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.yaml.snakeyaml.Yaml;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.hivesink.HiveSinkConnector;

/**
 * What can be checked of the docker/ stack without a Docker daemon (CI has none): the compose file parses and pins
 * every image; the connectors it deploys pass the connector's own validation; the plugin directory the worker mounts
 * is the one the build writes; the topics, tables and files the walk-through names are the ones the stack has.
 */
class DockerStackTest {

    private static final Path DOCKER = Path.of("..", "docker");
    private static final ObjectMapper JSON = new ObjectMapper();

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> services() throws IOException {
        Map<String, Object> compose = new Yaml().load(Files.readString(DOCKER.resolve("compose.yaml")));
        return (Map<String, Map<String, Object>>) compose.get("services");
    }

    private static List<JsonNode> connectors() throws IOException {
        List<JsonNode> connectors = new ArrayList<>();
        try (Stream<Path> files = Files.list(DOCKER.resolve("connectors"))) {
            for (Path file : files.sorted().toList()) {
                connectors.add(JSON.readTree(file.toFile()));
            }
        }
        return connectors;
    }

    @Test
    void everyServiceRunsAnImagePinnedToAVersion() throws IOException {
        Map<String, Map<String, Object>> services = services();
        assertEquals(List.of("connect", "datanode", "hiveserver2", "init", "jdbc-driver", "kafka", "metastore",
                "namenode", "postgres", "registry"), services.keySet().stream().sorted().toList());
        services.forEach((name, service) -> {
            String image = String.valueOf(service.get("image"));
            assertTrue(image.matches("[a-z0-9./_-]+:\\d[A-Za-z0-9._-]*"), name + " runs " + image
                    + ": pin it to a version");
        });
    }

    @Test
    void theConnectorsItDeployPassTheConnectorsValidation() throws IOException {
        List<JsonNode> connectors = connectors();
        assertEquals(2, connectors.size());
        for (JsonNode connector : connectors) {
            Map<String, String> config = new TreeMap<>(JSON.convertValue(connector.get("config"),
                    new com.fasterxml.jackson.core.type.TypeReference<Map<String, String>>() {}));
            config.put("name", connector.get("name").asText());
            List<String> errors = new ArrayList<>();
            for (ConfigValue value : new HiveSinkConnector().validate(config).configValues()) {
                value.errorMessages().forEach(m -> errors.add(value.name() + ": " + m));
            }
            assertEquals(List.of(), errors, connector.get("name").asText());
        }
    }

    @Test
    void theWorkerMountsThePluginTheBuildWritesAndWritesToTheStacksHdfs() throws Exception {
        @SuppressWarnings("unchecked")
        List<String> volumes = (List<String>) services().get("connect").get("volumes");
        String plugin = volumes.stream().filter(v -> v.endsWith(":/opt/connect/plugins/hive-sink:ro")).findFirst()
                .orElseThrow();
        Matcher defaulted = Pattern.compile("\\$\\{HIVE_SINK_VERSION:-([^}]+)}").matcher(plugin);
        assertTrue(defaulted.find(), plugin);
        String built = plugin.substring(0, plugin.indexOf(':', defaulted.end())).replace(defaulted.group(), defaulted
                .group(1));
        assertTrue(Files.isDirectory(DOCKER.resolve(built).resolve("lib")), "the build writes " + built
                + "/lib (after ./mvnw package); the default HIVE_SINK_VERSION must follow the project's version");

        Document coreSite = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(DOCKER.resolve("hadoop-conf/core-site.xml").toFile());
        String defaultFs = property(coreSite, "fs.defaultFS");
        for (JsonNode connector : connectors()) {
            assertEquals(defaultFs, connector.get("config").get("fs.url").asText(), connector.get("name").asText());
            assertEquals("/etc/hadoop/conf", connector.get("config").get("hadoop.conf.dir").asText());
        }
        assertTrue(Files.readString(DOCKER.resolve("hadoop.env")).contains("CORE-SITE.XML_fs.defaultFS="
                + defaultFs), "the NameNode serves the HDFS the connectors write to");
    }

    @Test
    void theWalkThroughNamesTheTopicsTablesAndFilesTheStackHas() throws IOException {
        String readme = Files.readString(DOCKER.resolve("README.md"), StandardCharsets.UTF_8);
        String init = Files.readString(DOCKER.resolve("init/init.py"), StandardCharsets.UTF_8);
        for (JsonNode connector : connectors()) {
            JsonNode config = connector.get("config");
            assertTrue(readme.contains(connector.get("name").asText()), connector.get("name").asText());
            String topic = config.get("topics").asText();
            assertTrue(init.contains("NewTopic(\"" + topic + "\""), "the init creates " + topic);
            String table = config.get("hive.database").asText() + "." + config.get("hive.table.map").asText()
                    .replaceAll(".*:", "");
            assertTrue(readme.contains(table), "the walk-through queries " + table);
        }
        Matcher paths = Pattern.compile("`((?:docker/)?(?:compose\\.yaml|hadoop\\.env|hadoop-conf/|connect/[\\w.-]+"
                + "|connectors/|init/[\\w.-]+))`").matcher(readme);
        int checked = 0;
        while (paths.find()) {
            String path = paths.group(1).replaceFirst("^docker/", "");
            assertTrue(Files.exists(DOCKER.resolve(path)), "docker/README.md names " + path);
            checked++;
        }
        assertTrue(checked >= 6, "the files table was read: " + checked);
        assertTrue(readme.contains("docker compose -f docker/compose.yaml up -d"));
    }

    private static String property(Document site, String name) {
        NodeList properties = site.getElementsByTagName("property");
        for (int i = 0; i < properties.getLength(); i++) {
            Element property = (Element) properties.item(i);
            if (property.getElementsByTagName("name").item(0).getTextContent().equals(name)) {
                return property.getElementsByTagName("value").item(0).getTextContent();
            }
        }
        throw new AssertionError("no " + name);
    }
}
