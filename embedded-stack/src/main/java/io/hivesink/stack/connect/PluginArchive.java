package io.hivesink.stack.connect;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The archives that {@code connector/} builds, installed on a stock worker's {@code plugin.path} as a user would: the
 * plain plugin zip, unzipped, and the archive in Confluent Hub's component layout, installed where
 * {@code confluent connect plugin install} puts it.
 */
public final class PluginArchive {

    /** The Hub archive's owner and name, which name its file, its top directory and its installed directory. */
    public static final String HUB_COMPONENT = "hivesink-hive-sink";

    private PluginArchive() {
    }

    /** Unzips the plugin archive built by {@code connector/} the way a user installs it. */
    public static Path unpack(Path pluginPath) throws IOException {
        unzip(built("hive-sink-.*\\.zip"), pluginPath, UnaryOperator.identity());
        return pluginPath;
    }

    /**
     * Installs the Hub archive under {@code pluginPath} as Confluent's CLI does: into {@code <owner>-<name>/}, the
     * archive's top directory ({@code <owner>-<name>-<version>/}) stripped.
     *
     * @return the installed component's directory
     */
    public static Path installHubArchive(Path pluginPath) throws IOException {
        Path zip = built(HUB_COMPONENT + "-.*\\.zip");
        String top = zip.getFileName().toString().replaceAll("\\.zip$", "") + "/";
        Path component = pluginPath.resolve(HUB_COMPONENT);
        unzip(zip, component, name -> {
            if (!name.startsWith(top)) {
                throw new IllegalStateException(zip + " holds " + name + " outside its top directory " + top);
            }
            return name.substring(top.length());
        });
        return component;
    }

    /** The archive {@code connector/} built whose file name matches (run from the project or one of its modules). */
    public static Path built(String fileNamePattern) throws IOException {
        Path here = Path.of(System.getProperty("user.dir"));
        Path target = (Files.isDirectory(here.resolve("connector/target")) ? here.resolve("connector/target")
                : here.resolve("../connector/target")).normalize();
        try (Stream<Path> files = Files.list(target)) {
            return files.filter(p -> p.getFileName().toString().matches(fileNamePattern)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("No " + fileNamePattern + " in " + target
                            + ": run ./mvnw -DskipTests install first"));
        }
    }

    private static void unzip(Path zip, Path into, UnaryOperator<String> entryPath) throws IOException {
        try (ZipFile archive = new ZipFile(zip.toFile())) {
            for (ZipEntry entry : archive.stream().toList()) {
                String name = entryPath.apply(entry.getName());
                if (name.isEmpty()) {
                    continue;
                }
                Path out = into.resolve(name).normalize();
                if (!out.startsWith(into.normalize())) {
                    throw new IllegalStateException(zip + " holds " + entry.getName() + ", outside " + into);
                }
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
    }
}
