package io.hivesink.bench.e2e;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import org.apache.kafka.connect.storage.Converter;

import io.hivesink.bench.BenchData;

/**
 * The plugins a benchmark worker loads from {@code plugin.path} beside hive-sink's own: Iceberg's sink (the directory
 * module {@code peer-iceberg-plugin} assembles) and the benchmark's converter ({@link FramedAvroConverter} and the
 * {@link BenchData} schema mapping it uses, packed here into a jar of its own with Avro and Jackson), each in a
 * directory of its own as a user would install them.
 */
final class BenchPlugins {

    private BenchPlugins() {
    }

    /** Lays the two plugins out under {@code dir} and returns it, for {@code plugin.path}. */
    static Path assemble(Path dir, Path icebergPlugin) throws IOException {
        if (!Files.isRegularFile(icebergPlugin.resolve("iceberg-kafka-connect-1.10.1.jar"))) {
            throw new IllegalStateException("Iceberg's sink is not at " + icebergPlugin
                    + ": build it first (./mvnw -B -q -DskipTests install), or pass --iceberg-plugin");
        }
        Path iceberg = Files.createDirectories(dir.resolve("iceberg-kafka-connect"));
        try (Stream<Path> jars = Files.list(icebergPlugin)) {
            for (Path jar : (Iterable<Path>) jars::iterator) {
                Files.copy(jar, iceberg.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Path converter = Files.createDirectories(dir.resolve("bench-converter"));
        writeConverterJar(converter.resolve("hive-sink-bench-converter.jar"));
        for (Class<?> dependency : List.of(org.apache.avro.Schema.class,
                com.fasterxml.jackson.databind.ObjectMapper.class, com.fasterxml.jackson.core.JsonFactory.class,
                com.fasterxml.jackson.annotation.JsonAutoDetect.class)) {
            Path jar = jarOf(dependency);
            Files.copy(jar, converter.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
        return dir;
    }

    private static void writeConverterJar(Path jar) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (Class<?> type : List.of(FramedAvroConverter.class, BenchData.class)) {
                addClassFiles(out, type);
            }
            // found by Connect's plugin.discovery=service_load
            out.putNextEntry(new JarEntry("META-INF/services/" + Converter.class.getName()));
            out.write((FramedAvroConverter.class.getName() + "\n").getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
    }

    /** Adds the class and the ones javac made of it (nested types, switch maps). */
    private static void addClassFiles(JarOutputStream out, Class<?> type) throws IOException {
        String name = type.getSimpleName();
        String packagePath = type.getPackageName().replace('.', '/');
        try (Stream<Path> files = Files.list(jarOf(type).resolve(packagePath))) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String fileName = file.getFileName().toString();
                if (fileName.equals(name + ".class") || fileName.startsWith(name + "$")) {
                    out.putNextEntry(new JarEntry(packagePath + "/" + fileName));
                    Files.copy(file, out);
                    out.closeEntry();
                }
            }
        }
    }

    private static Path jarOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
