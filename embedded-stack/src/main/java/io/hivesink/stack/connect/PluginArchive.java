package io.hivesink.stack.connect;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/** The plugin zip that {@code connector/} builds, installed on a stock worker's {@code plugin.path}. */
public final class PluginArchive {

    private PluginArchive() {
    }

    /** Unzips the plugin archive built by {@code connector/} the way a user installs it. */
    public static Path unpack(Path pluginPath) throws IOException {
        Path zip;
        Path target = Path.of(System.getProperty("user.dir")).resolve("../connector/target").normalize();
        try (Stream<Path> files = Files.list(target)) {
            zip = files.filter(p -> p.getFileName().toString().matches("hive-sink-.*\\.zip")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("No plugin zip in " + target
                            + ": run ./mvnw -DskipTests install first"));
        }
        try (ZipFile archive = new ZipFile(zip.toFile())) {
            for (ZipEntry entry : archive.stream().toList()) {
                Path out = pluginPath.resolve(entry.getName()).normalize();
                if (entry.isDirectory()) {
                    Files.createDirectories(out);
                } else {
                    Files.createDirectories(out.getParent());
                    try (InputStream in = archive.getInputStream(entry)) {
                        Files.copy(in, out, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
        return pluginPath;
    }
}
