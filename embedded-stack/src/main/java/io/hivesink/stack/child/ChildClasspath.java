package io.hivesink.stack.child;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The classpath of a child JVM, written by building one of the child modules under {@code child-jvms/}:
 * {@code <module>/target/classpath.txt} (its dependency jars) plus {@code <module>/target/classes} if the module has
 * code.
 *
 * <p>Looks in the directory named by the system property {@code hivesink.<module>Dir} if set, else walks up from
 * {@code user.dir} (tests run in {@code integration-tests/}, the demo and the benchmarks from the repository root)
 * until a directory holds {@code child-jvms/<module>}.
 */
public final class ChildClasspath {

    /** The folder of the child modules, at the repository root. */
    private static final String CHILD_MODULES = "child-jvms";

    private final Path moduleDir;
    private final String classpath;
    /** The system property that overrides the module's directory, for error messages. */
    private final String property;

    private ChildClasspath(Path moduleDir, String classpath, String property) {
        this.moduleDir = moduleDir;
        this.classpath = classpath;
        this.property = property;
    }

    /** The metastore and HiveServer2 child JVMs ({@code hive-child}, with its main classes). */
    public static ChildClasspath hive() {
        return locate("hive-child", "io/hivesink/hivechild");
    }

    /**
     * HiveServer2 3.1.3 ({@code hive-child-3.1}): its jars, and its classes: the launcher that loads Hive through a
     * URLClassLoader of its own, and the stand-in for a serializer of hive-exec's that fails on Java 9 and later.
     */
    public static ChildClasspath hive31() {
        return locate("hive-child-3.1", "io/hivesink/hivechild31");
    }

    /** A bare Kafka Connect worker, the Kafka runtime only: {@code connect-child}, {@code connect-child-3.9}, ... */
    public static ChildClasspath connectWorker(String module) {
        return locate(module, null);
    }

    /**
     * A stock Hive metastore server of an older release ({@code metastore-child-2.3}, {@code metastore-child-3.1}:
     * its jars only; the launcher comes from {@link #hive()}).
     */
    public static ChildClasspath metastore(String module) {
        return locate(module, null);
    }

    /** S3Proxy, an S3 API server ({@code s3proxy-child}: its one self-contained jar). */
    public static ChildClasspath s3proxy() {
        return locate("s3proxy-child", null);
    }

    /** S3A and the AWS SDK's S3 modules, for Spark's driver to read {@code s3a://} ({@code spark-s3a}: jars only). */
    public static ChildClasspath sparkS3a() {
        return locate("spark-s3a", null);
    }

    private static ChildClasspath locate(String module, String requiredClasses) {
        String property = "hivesink." + propertyName(module) + "Dir";
        Path moduleDir = findModuleDir(module, property);
        Path classes = moduleDir.resolve("target/classes");
        Path listFile = moduleDir.resolve("target/classpath.txt");
        if (!Files.isRegularFile(listFile)
                || (requiredClasses != null && !Files.isDirectory(classes.resolve(requiredClasses)))) {
            throw new IllegalStateException(missingMessage(property, "found " + moduleDir + " but not " + listFile
                    + (requiredClasses == null ? "" : " and compiled classes in " + classes)));
        }
        String jars = readList(listFile, property);
        return new ChildClasspath(moduleDir, requiredClasses == null ? jars : classes + File.pathSeparator + jars,
                property);
    }

    /** The entries of a class path list file the module wrote, joined with the path separator; each must exist. */
    private static String readList(Path listFile, String property) {
        String jars;
        try {
            jars = Files.readString(listFile, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + listFile, e);
        }
        if (jars.isEmpty()) {
            throw new IllegalStateException(missingMessage(property, listFile + " is empty"));
        }
        for (String jar : jars.split(File.pathSeparator, -1)) {
            if (!Files.exists(Path.of(jar))) {
                throw new IllegalStateException(missingMessage(property, listFile + " lists " + jar
                        + ", which does not exist"));
            }
        }
        return jars;
    }

    /** {@code hive-child} to {@code hiveChild}, {@code metastore-child-3.1} to {@code metastoreChild31}. */
    private static String propertyName(String module) {
        StringBuilder out = new StringBuilder();
        boolean upper = false;
        for (int i = 0; i < module.length(); i++) {
            char c = module.charAt(i);
            if (c == '-') {
                upper = true;
            } else if (c != '.') {
                out.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return out.toString();
    }

    /**
     * The directory of a child module that holds no classpath but files of its own (Trino's server, which runs on a
     * Java of its own): {@code child-jvms/<module>}, or the directory {@code -Dhivesink.<module>Dir} names.
     */
    public static Path moduleOnly(String module) {
        return findModuleDir(module, "hivesink." + propertyName(module) + "Dir");
    }

    /** The module directory. */
    public Path moduleDir() {
        return moduleDir;
    }

    /** The module's compiled classes, {@code target/classes}. */
    public Path classesDir() {
        return moduleDir.resolve("target/classes");
    }

    /**
     * Another class path list the module writes beside {@code classpath.txt}, {@code target/<fileName>}: its entries
     * joined with the path separator.
     */
    public String list(String fileName) {
        return readList(moduleDir.resolve("target").resolve(fileName), property);
    }

    /** This classpath with more entries after it (joined with the path separator). */
    public ChildClasspath append(String entries) {
        return new ChildClasspath(moduleDir, classpath + File.pathSeparator + entries, property);
    }

    /** The classes (if any) and the dependency jars, joined with the path separator. */
    public String classpath() {
        return classpath;
    }

    private static Path findModuleDir(String module, String property) {
        String override = System.getProperty(property);
        if (override != null && !override.isBlank()) {
            return Path.of(override).toAbsolutePath().normalize();
        }
        Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath().normalize();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(CHILD_MODULES).resolve(module);
            if (Files.isRegularFile(candidate.resolve("target/classpath.txt"))
                    || Files.isRegularFile(candidate.resolve("pom.xml"))) {
                return candidate; // built, or present but not built (reported by the caller)
            }
        }
        throw new IllegalStateException(missingMessage(property, "no " + CHILD_MODULES + "/" + module
                + "/target/classpath.txt in "
                + start + " or any parent"));
    }

    private static String missingMessage(String property, String what) {
        return "Child JVM classpath not found (" + what + "). Build the project first: run ./mvnw -DskipTests "
                + "install from the repository root (or set -D" + property + "=<module directory>).";
    }
}
