package io.hivesink.metastore;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A self-signed server key and a trust store holding its certificate, made with the JDK's keytool, as an operator
 * makes them for a metastore with TLS on.
 */
record TlsFiles(Path keyStore, String keyStorePassword, Path trustStore, String trustStorePassword) {

    static TlsFiles create(Path dir, String name) throws Exception {
        Files.createDirectories(dir);
        Path keyStore = dir.resolve(name + "-server.p12");
        Path certificate = dir.resolve(name + ".pem");
        Path trustStore = dir.resolve(name + "-trust.jks");
        for (Path p : List.of(keyStore, certificate, trustStore)) {
            Files.deleteIfExists(p);
        }
        keytool("-genkeypair", "-alias", name, "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore",
                keyStore.toString(), "-storepass", "server-secret", "-keypass", "server-secret");
        keytool("-exportcert", "-rfc", "-alias", name, "-keystore", keyStore.toString(), "-storepass",
                "server-secret", "-file", certificate.toString());
        keytool("-importcert", "-noprompt", "-alias", name, "-file", certificate.toString(), "-storetype", "JKS",
                "-keystore", trustStore.toString(), "-storepass", "trust-secret");
        return new TlsFiles(keyStore, "server-secret", trustStore, "trust-secret");
    }

    /** The server side: a TLS context that presents the key. */
    SSLContext serverContext() throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            keys.load(in, keyStorePassword.toCharArray());
        }
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(keys, keyStorePassword.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(factory.getKeyManagers(), null, null);
        return context;
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + output);
        }
    }
}
