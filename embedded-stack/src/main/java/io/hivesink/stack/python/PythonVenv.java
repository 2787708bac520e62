package io.hivesink.stack.python;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.hivesink.stack.ProcessLock;

/**
 * A Python virtual environment under {@code target/} with pinned packages from PyPI: made with
 * {@code python3 -m venv} on first use, then reused while its requirements stay the same (they are kept in a marker
 * file beside it). Tests use it for the peers that live in Python (Confluent's serializer, Spark).
 */
public final class PythonVenv {

    private final Path dir;
    private final List<String> requirements;

    private PythonVenv(Path dir, List<String> requirements) {
        this.dir = dir.toAbsolutePath();
        this.requirements = List.copyOf(requirements);
    }

    public static PythonVenv at(Path dir, List<String> requirements) {
        return new PythonVenv(dir, requirements);
    }

    /**
     * The environment's interpreter, made and filled if needed. Test JVMs run side by side, so the check and the
     * making happen under a lock on a file beside the environment: the second JVM waits, then finds it made.
     */
    public synchronized Path python() throws Exception {
        return ProcessLock.holding(dir.resolveSibling(dir.getFileName() + ".lock"), this::madeIfNeeded);
    }

    private Path madeIfNeeded() throws Exception {
        Path python = dir.resolve("bin").resolve("python");
        Path marker = dir.resolve("hivesink-requirements.txt");
        String wanted = String.join("\n", requirements) + "\n";
        if (Files.isExecutable(python) && Files.exists(marker)
                && Files.readString(marker, StandardCharsets.UTF_8).equals(wanted)) {
            return python;
        }
        run(List.of("python3", "-m", "venv", "--clear", dir.toString()), Duration.ofMinutes(2));
        List<String> install = new ArrayList<>(List.of(python.toString(), "-m", "pip", "install",
                "--disable-pip-version-check", "--no-input"));
        install.addAll(requirements);
        run(install, Duration.ofMinutes(10));
        Files.writeString(marker, wanted, StandardCharsets.UTF_8);
        return python;
    }

    /** Runs a command and returns its output (stdout and stderr); fails with that output if it does not exit 0. */
    public static String run(List<String> command, Duration timeout) throws Exception {
        return run(command, Map.of(), timeout);
    }

    /** As {@link #run(List, Duration)}, with extra environment variables. */
    public static String run(List<String> command, Map<String, String> environment, Duration timeout)
            throws Exception {
        Path log = Files.createTempFile(Files.createDirectories(Path.of("target")), "process-", ".log");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            builder.environment().merge("NO_PROXY", "127.0.0.1,localhost", (a, b) -> a + "," + b);
            builder.environment().merge("no_proxy", "127.0.0.1,localhost", (a, b) -> a + "," + b);
            builder.environment().putAll(environment);
            Process process = builder.start();
            boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!exited) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            String output = Files.readString(log);
            if (!exited || process.exitValue() != 0) {
                throw new AssertionError(String.join(" ", command) + (exited ? " exited " + process.exitValue()
                        : " did not finish in " + timeout.toSeconds() + " s") + ":\n" + output);
            }
            return output;
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
