package io.hivesink.hivechild;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A stock Hive metastore server of another release (2.3, 3.1) started through its own {@code HiveMetaStore.main},
 * for compatibility tests. It runs on that release's jars (the {@code metastore-child-*} modules), so this class
 * uses nothing of Hive: the server's settings come from {@code hive-site.xml} / {@code metastore-site.xml} in a
 * directory the parent puts first on the classpath.
 *
 * <p>Arguments ({@code key=value}): {@code workDir}, {@code port}; optional {@code jdbcUrl} and
 * {@code schemaScript} (create the schema from that release's Derby script first), {@code readyTimeoutSeconds}
 * (default 120).
 *
 * <p>Stdout protocol (see {@link ChildIo}): {@code READY\tthrift://localhost:PORT} once the server's port accepts
 * connections (the parent then makes a real call), or {@code FAILED\tmessage}. Exits when stdin reaches end of input.
 */
public final class LegacyMetastoreMain {

    private LegacyMetastoreMain() {
    }

    public static void main(String[] args) {
        try {
            Map<String, String> a = ChildIo.parseArgs(args, "workDir", "port");
            Path workDir = Path.of(a.get("workDir")).toAbsolutePath();
            ChildIo.setUp(workDir, "metastore");
            // Hive's own log set-up (LogUtils) reads these instead of our log4j2 file
            System.setProperty("hive.log.dir", workDir.toString());
            System.setProperty("hive.log.file", "metastore.log");
            run(a);
        } catch (Throwable t) {
            ChildIo.fail(t);
        }
    }

    private static void run(Map<String, String> a) throws Exception {
        int port = Integer.parseInt(a.get("port"));
        long readyTimeoutMs = TimeUnit.SECONDS.toMillis(Long.parseLong(a.getOrDefault("readyTimeoutSeconds", "120")));
        if (a.containsKey("schemaScript")) {
            DerbySchema.create(a.get("jdbcUrl"), Path.of(a.get("schemaScript")));
        }
        ChildIo.requireFreePort(port);

        Method main = Class.forName("org.apache.hadoop.hive.metastore.HiveMetaStore")
                .getMethod("main", String[].class);
        AtomicReference<Throwable> died = new AtomicReference<>();
        Thread server = new Thread(() -> {
            try {
                main.invoke(null, (Object) new String[] {"-p", String.valueOf(port)});
                died.compareAndSet(null, new IllegalStateException("metastore server returned"));
            } catch (InvocationTargetException e) {
                died.compareAndSet(null, e.getCause());
            } catch (Throwable t) {
                died.compareAndSet(null, t);
            }
        }, "metastore-server");
        server.start();

        long deadline = System.currentTimeMillis() + readyTimeoutMs;
        while (!ChildIo.portOpen(port)) {
            if (died.get() != null) {
                throw new IllegalStateException("metastore server failed to start", died.get());
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("metastore port " + port + " not open after " + readyTimeoutMs
                        + " ms");
            }
            Thread.sleep(100);
        }
        ChildIo.send("READY", "thrift://localhost:" + port);
        ChildIo.exitOnStdinEof();
    }
}
