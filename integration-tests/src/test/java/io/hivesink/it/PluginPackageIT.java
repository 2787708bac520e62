package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import org.junit.jupiter.api.Test;

/**
 * The plugin archive a user unzips under plugin.path: one copy each of Avro, Hadoop and the metastore client, and
 * nothing a Connect worker already loads (Kafka, SLF4J and logging backends, Jetty, servlet APIs).
 */
class PluginPackageIT {

    @Test
    void pluginHoldsOneVersionOfEachLibraryAndNothingTheWorkerProvides() throws IOException {
        Path zip;
        try (Stream<Path> files = Files.list(Path.of("..", "connector", "target"))) {
            zip = files.filter(p -> p.getFileName().toString().matches("hive-sink-.*\\.zip"))
                    .findFirst().orElseThrow(() -> new AssertionError("no plugin zip: run ./mvnw package"));
        }
        List<String> jars;
        try (ZipFile archive = new ZipFile(zip.toFile())) {
            jars = archive.stream().map(ZipEntry::getName)
                    .filter(name -> name.startsWith("hive-sink/lib/") && name.endsWith(".jar"))
                    .map(name -> name.substring("hive-sink/lib/".length()))
                    .sorted().toList();
        }
        assertTrue(jars.stream().anyMatch(j -> j.startsWith("hive-sink-connector-")), jars.toString());
        assertEquals(1, count(jars, "avro-"), jars.toString());
        assertEquals(1, count(jars, "hadoop-client-api-"), jars.toString());
        assertEquals(1, count(jars, "hadoop-client-runtime-"), jars.toString());
        assertEquals(1, count(jars, "hive-standalone-metastore-common-"), jars.toString());
        for (String forbidden : List.of("kafka", "connect-", "slf4j", "log4j", "logback", "reload4j", "jetty",
                "servlet", "jersey", "hadoop-common", "hadoop-hdfs", "hive-exec", "derby", "zookeeper", "netty")) {
            assertTrue(jars.stream().noneMatch(j -> j.contains(forbidden)),
                    forbidden + " must not be in the plugin: " + jars);
        }
        List<String> artifacts = jars.stream().map(jar -> jar.replaceAll("-\\d.*$", "")).toList();
        for (String artifact : artifacts) {
            // by whole name: checksums and checksums-spi are two artifacts
            assertEquals(1, artifacts.stream().filter(artifact::equals).count(), "two versions of " + artifact
                    + ": " + jars);
        }
    }

    private static long count(List<String> jars, String prefix) {
        return jars.stream().filter(j -> j.startsWith(prefix)).count();
    }
}
