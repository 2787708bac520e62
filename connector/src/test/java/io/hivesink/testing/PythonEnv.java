package io.hivesink.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A Python virtual environment with the readers nobody here wrote, under {@code target/pyenv-<name>} of the module:
 * made with {@code python3 -m venv} on first use, its packages installed from PyPI with its own pip, then reused while
 * its requirements stay the same. {@code HIVESINK_PYTHON} names another base interpreter than {@code python3}. A
 * missing interpreter or a failed install fails the test with what to do: these checks are part of the acceptance of
 * the writers, so they never skip.
 */
public final class PythonEnv {

    /**
     * fastavro, for Avro container files: it reads snappy through cramjam and zstandard through backports.zstd
     * (Python 3.14 has it built in).
     */
    public static final PythonEnv FASTAVRO = new PythonEnv("fastavro", List.of("fastavro==1.13.1", "cramjam==2.14.0",
            "backports.zstd==1.8.0; python_version < \"3.14\""));
    /** pyarrow, for Parquet files (Arrow's own C++ reader). */
    public static final PythonEnv PYARROW = new PythonEnv("pyarrow", List.of("pyarrow==26.0.1"));

    private final String name;
    private final List<String> requirements;
    private Path python;

    private PythonEnv(String name, List<String> requirements) {
        this.name = name;
        this.requirements = requirements;
    }

    /** The environment's interpreter, made if needed. */
    public synchronized Path python() {
        if (python == null) {
            try {
                python = prepare();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while preparing the Python environment", e);
            }
        }
        return python;
    }

    private Path prepare() throws IOException, InterruptedException {
        Path target = Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).resolve("target");
        Path dir = target.resolve("pyenv-" + name);
        Path interpreter = dir.resolve(isWindows() ? "Scripts/python.exe" : "bin/python");
        Path marker = dir.resolve("hivesink-requirements.txt");
        String wanted = String.join("\n", requirements) + "\n";
        Files.createDirectories(target);
        // another JVM (a second build in the same tree) may be preparing it too
        try (FileChannel lockFile = FileChannel.open(target.resolve("pyenv-" + name + ".lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            lockFile.lock(); // released when the channel closes
            if (Files.isExecutable(interpreter) && Files.exists(marker)
                    && Files.readString(marker).equals(wanted)) {
                return interpreter;
            }
            String base = System.getenv().getOrDefault("HIVESINK_PYTHON", "python3");
            Result version = run(List.of(base, "--version"), 60, "");
            if (version == null || version.exitCode != 0) {
                throw new IllegalStateException("The " + name + " interop test needs Python 3 with venv and pip, but '"
                        + base + " --version' " + (version == null ? "could not start" : "failed: " + version.output)
                        + ". Install python3 (on Debian: apt-get install python3 python3-venv python3-pip), or set"
                        + " HIVESINK_PYTHON to a Python 3 interpreter.");
            }
            Files.deleteIfExists(marker);
            Result venv = run(List.of(base, "-m", "venv", "--clear", dir.toString()), 300, "");
            if (venv == null || venv.exitCode != 0) {
                throw new IllegalStateException("'" + base + " -m venv " + dir + "' failed (on Debian the venv module"
                        + " is in the python3-venv package): " + (venv == null ? "could not start" : venv.output));
            }
            List<String> install = new ArrayList<>(List.of(interpreter.toString(), "-m", "pip", "install",
                    "--disable-pip-version-check", "--no-input", "--quiet"));
            install.addAll(requirements);
            Result pip = run(install, 600, "");
            if (pip == null || pip.exitCode != 0) {
                throw new IllegalStateException("Installing " + requirements + " from PyPI into " + dir + " failed: "
                        + (pip == null ? "pip could not start" : pip.output));
            }
            Files.writeString(marker, wanted);
            return interpreter;
        }
    }

    private static boolean isWindows() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
    }

    public record Result(int exitCode, String output) {
    }

    /**
     * Runs a command with stderr folded into stdout.
     *
     * @return null if it cannot start (not installed)
     */
    public static Result run(List<String> command, long timeoutSeconds, String stdin)
            throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return null;
        }
        process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> {
            try (InputStream in = process.getInputStream()) {
                in.transferTo(output);
            } catch (IOException e) {
                // the process is gone; what was read is what there is
            }
        });
        reader.start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            reader.join(10_000);
            throw new IOException(String.join(" ", command) + " did not finish within " + timeoutSeconds + " s: "
                    + output.toString(StandardCharsets.UTF_8));
        }
        reader.join();
        return new Result(process.exitValue(), output.toString(StandardCharsets.UTF_8));
    }
}
