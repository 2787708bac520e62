package io.hivesink.it.hive;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the classpath of the Hive child JVMs: {@code hive-child/target/classes} plus the jars listed in
 * {@code hive-child/target/classpath.txt}, both written by building the {@code hive-child} module.
 *
 * <p>Looks in the directory named by the system property {@value #DIR_PROPERTY} if set, else walks up from
 * {@code user.dir} (tests run in {@code integration-tests/}, the demo may run from the repository root) until a
 * directory contains {@code hive-child/target/classpath.txt}.
 */
public final class HiveChildClasspath {

    /** Optional override: the {@code hive-child} module directory. */
    public static final String DIR_PROPERTY = "hivesink.hiveChildDir";

    private final Path moduleDir;
    private final String classpath;

    private HiveChildClasspath(Path moduleDir, String classpath) {
        this.moduleDir = moduleDir;
        this.classpath = classpath;
    }

    public static HiveChildClasspath locate() {
        Path moduleDir = findModuleDir();
        Path classes = moduleDir.resolve("target/classes");
        Path listFile = moduleDir.resolve("target/classpath.txt");
        if (!Files.isRegularFile(listFile) || !Files.isDirectory(classes.resolve("io/hivesink/hivechild"))) {
            throw new IllegalStateException(missingMessage("found " + moduleDir + " but not both " + listFile
                    + " and compiled classes in " + classes));
        }
        String jars;
        try {
            jars = Files.readString(listFile, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + listFile, e);
        }
        if (jars.isEmpty()) {
            throw new IllegalStateException(missingMessage(listFile + " is empty"));
        }
        for (String jar : jars.split(java.io.File.pathSeparator)) {
            if (!Files.exists(Path.of(jar))) {
                throw new IllegalStateException(missingMessage(listFile + " lists " + jar + ", which does not exist"));
            }
        }
        return new HiveChildClasspath(moduleDir, classes + java.io.File.pathSeparator + jars);
    }

    /** The {@code hive-child} module directory. */
    public Path moduleDir() {
        return moduleDir;
    }

    /** {@code target/classes} and the dependency jars, joined with the path separator. */
    public String classpath() {
        return classpath;
    }

    private static Path findModuleDir() {
        String override = System.getProperty(DIR_PROPERTY);
        if (override != null && !override.isBlank()) {
            return Path.of(override).toAbsolutePath().normalize();
        }
        Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath().normalize();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("hive-child");
            if (Files.isRegularFile(candidate.resolve("target/classpath.txt"))) {
                return candidate;
            }
            if (Files.isRegularFile(candidate.resolve("pom.xml"))) {
                // the module exists but is not built
                return candidate;
            }
        }
        throw new IllegalStateException(missingMessage("no hive-child/target/classpath.txt in " + start
                + " or any parent"));
    }

    private static String missingMessage(String what) {
        return "Hive child classpath not found (" + what + "). Build the project first: run ./mvnw -DskipTests install"
                + " from the repository root (or set -D" + DIR_PROPERTY + "=<path to hive-child>).";
    }
}
