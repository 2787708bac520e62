package io.hivesink.stack.hive;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.hivesink.hivechild.ChildProtocol;
import io.hivesink.stack.child.ChildClasspath;

/**
 * One Hive child JVM ({@code io.hivesink.hivechild.*Main}) and its side of the line protocol.
 *
 * <p>Protocol lines on the child's stdout start with {@link #PREFIX}, then a type and tab-separated fields escaped as
 * in {@link ChildProtocol#escape}. Other stdout lines are stray output and go to {@code <name>.stdout.log}; stderr goes
 * to {@code <name>.console.log}; the child's own logging goes to {@code <name>.log}. Nothing reaches this JVM's
 * console.
 */
final class HiveChildJvm implements AutoCloseable {

    static final String PREFIX = ChildProtocol.PREFIX;

    /** Extra JVM flags for the Hive children, space separated (e.g. a debugger agent). */
    static final String EXTRA_FLAGS_PROPERTY = "hivesink.hiveChild.jvmFlags";

    /** JDK 17 opens that Hive (Kryo), Hadoop and DataNucleus need (STACK.md pitfall 6). */
    static final List<String> ADD_OPENS = List.of(
            "java.base/java.lang",
            "java.base/java.lang.invoke",
            "java.base/java.lang.ref",
            "java.base/java.lang.reflect",
            "java.base/java.io",
            "java.base/java.math",
            "java.base/java.net",
            "java.base/java.nio",
            "java.base/java.nio.charset",
            "java.base/java.security",
            "java.base/java.text",
            "java.base/java.time",
            "java.base/java.util",
            "java.base/java.util.concurrent",
            "java.base/java.util.concurrent.atomic",
            "java.base/java.util.concurrent.locks",
            "java.base/java.util.regex",
            "java.base/jdk.internal.misc",
            "java.base/sun.net.util",
            "java.base/sun.nio.ch",
            "java.base/sun.nio.cs",
            "java.base/sun.security.action",
            "java.base/sun.security.util",
            "java.base/sun.util.calendar",
            "java.sql/java.sql");

    /** A protocol line: its type and unescaped fields. {@code type} is null at the end of the child's stdout. */
    record Line(String type, List<String> fields) {
        static final Line EOF = new Line(null, List.of());

        String field(int i) {
            return i < fields.size() ? fields.get(i) : null;
        }
    }

    private final String name;
    private final Path workDir;
    private final Process process;
    private final BufferedWriter stdin;
    private final BlockingQueue<Line> lines = new LinkedBlockingQueue<>();
    private final Thread reader;

    private HiveChildJvm(String name, Path workDir, Process process) {
        this.name = name;
        this.workDir = workDir;
        this.process = process;
        this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        this.reader = new Thread(this::readStdout, "hive-child-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code mainClass} in a new JVM, working directory {@code workDir}.
     *
     * @param classpathFirst directories put before the Hive child classpath (e.g. a conf dir), may be empty
     */
    static HiveChildJvm start(String name, Path workDir, String mainClass, String maxHeap, List<Path> classpathFirst,
            List<String> args) {
        return start(name, workDir, mainClass, maxHeap, classpathFirst, ChildClasspath.hive(), args);
    }

    /** As above, on the classpath of another child module (after {@code classpathFirst}). */
    static HiveChildJvm start(String name, Path workDir, String mainClass, String maxHeap, List<Path> classpathFirst,
            ChildClasspath cp, List<String> args) {
        createDirectories(workDir.resolve("tmp"));
        return launch(name, workDir, maxHeap, joined(classpathFirst, cp.classpath()), mainClass, args);
    }

    /**
     * As above, on HiveServer2 3.1.3's classpath ({@code hive-child-3.1}, then hive-child's classes for the mains),
     * loaded by hive-child-3.1's {@code IsolatedMain} in a URLClassLoader: Hive 3.1 casts its class loader to one,
     * and the JDK's application loader has not been one since Java 9. The JVM's own classpath is the launcher's
     * classes; the rest goes to {@code <name>.classpath} in {@code workDir}, which the launcher reads.
     */
    static HiveChildJvm startHive31(String name, Path workDir, String mainClass, String maxHeap,
            List<Path> classpathFirst, List<String> args) {
        createDirectories(workDir.resolve("tmp"));
        ChildClasspath hive31 = ChildClasspath.hive31();
        String isolated = joined(classpathFirst, hive31.classpath() + File.pathSeparator
                + ChildClasspath.hive().classesDir());
        Path listFile = workDir.resolve(name + ".classpath").toAbsolutePath();
        try {
            Files.writeString(listFile, isolated, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + listFile, e);
        }
        List<String> launcherArgs = new ArrayList<>(List.of(listFile.toString(), mainClass));
        launcherArgs.addAll(args);
        return launch(name, workDir, maxHeap, hive31.classesDir().toString(), "io.hivesink.hivechild31.IsolatedMain",
                launcherArgs);
    }

    private static void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }

    private static String joined(List<Path> first, String rest) {
        StringBuilder classpath = new StringBuilder();
        for (Path p : first) {
            classpath.append(p.toAbsolutePath()).append(File.pathSeparator);
        }
        return classpath.append(rest).toString();
    }

    private static HiveChildJvm launch(String name, Path workDir, String maxHeap, String classpath, String mainClass,
            List<String> args) {
        Path tmp = workDir.resolve("tmp");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + maxHeap);
        // Short-lived JVMs on small data on 2 cores: C1 only and the serial collector start them 30-50 % faster
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Djava.net.preferIPv4Stack=true");
        cmd.add("-Djava.io.tmpdir=" + tmp.toAbsolutePath());
        cmd.add("-Dlog4j2.formatMsgNoLookups=true");
        // Hive shows timestamps in its JVM's zone: tests compare them with UTC text, whatever zone the machine is in
        cmd.add("-Duser.timezone=UTC");
        for (String open : ADD_OPENS) {
            cmd.add("--add-opens=" + open + "=ALL-UNNAMED");
        }
        String extra = System.getProperty(EXTRA_FLAGS_PROPERTY, "").strip();
        if (!extra.isEmpty()) {
            cmd.addAll(List.of(extra.split("\\s+")));
        }
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);

        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(workDir.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(workDir.resolve(name + ".console.log").toFile()));
        pb.environment().remove("CLASSPATH");
        pb.environment().remove("HADOOP_CONF_DIR");
        pb.environment().remove("HIVE_CONF_DIR");
        try {
            return new HiveChildJvm(name, workDir, pb.start());
        } catch (IOException e) {
            throw new HiveChildException("cannot start the " + name + " child JVM: " + e.getMessage(), e);
        }
    }

    private void readStdout() {
        Path stray = workDir.resolve(name + ".stdout.log");
        Writer strayOut = null;
        try (BufferedReader r = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                int at = line.indexOf(PREFIX);
                if (at >= 0) {
                    if (at > 0) {
                        // stray output without a line end, glued in front of a protocol line
                        strayOut = stray(strayOut, stray, line.substring(0, at));
                    }
                    String[] parts = line.substring(at + PREFIX.length()).split("\t", -1);
                    List<String> fields = new ArrayList<>(parts.length - 1);
                    for (int i = 1; i < parts.length; i++) {
                        fields.add(ChildProtocol.unescape(parts[i]));
                    }
                    lines.add(new Line(parts[0], fields));
                } else {
                    strayOut = stray(strayOut, stray, line);
                }
            }
        } catch (IOException e) {
            // the child is gone
        } finally {
            lines.add(Line.EOF);
            if (strayOut != null) {
                try {
                    strayOut.close();
                } catch (IOException ignored) {
                    // nothing to do
                }
            }
        }
    }

    private static Writer stray(Writer out, Path file, String text) throws IOException {
        Writer w = out != null ? out
                : Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
        w.write(text);
        w.write('\n');
        w.flush();
        return w;
    }

    /**
     * The next protocol line; null if none arrived within {@code timeout}. Returns {@link Line#EOF} (type null) once
     * the child's stdout has ended.
     */
    @SuppressWarnings("ReferenceEquality") // EOF is a sentinel instance: identity is the question
    Line next(Duration timeout) throws InterruptedException {
        Line line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (line == Line.EOF) {
            lines.add(Line.EOF); // stays at the end for later calls
        }
        return line;
    }

    /** Sends one line (escaped) to the child's stdin. */
    void send(String text) throws IOException {
        stdin.write(ChildProtocol.escape(text));
        stdin.write('\n');
        stdin.flush();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Exit status, waiting up to 2 s; null if still running. */
    Integer exitStatus() {
        try {
            if (process.waitFor(2, TimeUnit.SECONDS)) {
                return process.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    long pid() {
        return process.pid();
    }

    Path workDir() {
        return workDir;
    }

    Path logFile() {
        return workDir.resolve(name + ".log");
    }

    /** The last lines of the child's log files, for error messages. */
    String logTail() {
        StringBuilder out = new StringBuilder();
        for (String suffix : List.of(".log", ".console.log", ".stdout.log")) {
            Path file = workDir.resolve(name + suffix);
            if (!Files.isRegularFile(file)) {
                continue;
            }
            out.append("\n----- last lines of ").append(file).append(" -----\n").append(tail(file, 40, 6000));
        }
        return out.length() == 0 ? "\n(no log files in " + workDir + ")" : out.toString();
    }

    private static String tail(Path file, int maxLines, int maxChars) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            StringBuilder out = new StringBuilder();
            for (String l : all.subList(Math.max(0, all.size() - maxLines), all.size())) {
                out.append(l).append('\n');
            }
            return out.length() > maxChars ? "..." + out.substring(out.length() - maxChars) : out.toString();
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read: " + e + ")\n";
        }
    }

    /** Closes stdin (the child exits at end of input), waits up to 10 s, then kills it. Idempotent. */
    @Override
    public void close() {
        try {
            stdin.close();
        } catch (IOException ignored) {
            // already gone
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the child at once. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String format(Duration d) {
        return d.toMillis() < 10_000 ? d.toMillis() + " ms" : d.toSeconds() + " s";
    }
}
