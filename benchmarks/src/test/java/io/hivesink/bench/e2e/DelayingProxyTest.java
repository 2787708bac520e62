package io.hivesink.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** Through the proxy a request arrives whole and in order, and no sooner than the delay. */
class DelayingProxyTest {

    @Test
    void requestsArriveInOrderAfterTheDelayAndAnswersComeBack() throws Exception {
        try (ServerSocket echo = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> {
                try (Socket s = echo.accept(); InputStream in = s.getInputStream();
                        OutputStream out = s.getOutputStream()) {
                    in.transferTo(out); // echoes until the client's end
                } catch (IOException e) {
                    // the test fails on what it reads
                }
            });
            server.setDaemon(true);
            server.start();
            try (DelayingProxy proxy = DelayingProxy.start("thrift://127.0.0.1:" + echo.getLocalPort(), 150)) {
                URI uri = URI.create(proxy.uri());
                try (Socket client = new Socket(uri.getHost(), uri.getPort())) {
                    byte[] request = "get_table(db, t) then add_partitions(...)".repeat(2_000)
                            .getBytes(StandardCharsets.UTF_8);
                    long sent = System.nanoTime();
                    OutputStream out = client.getOutputStream();
                    out.write(request, 0, 10);
                    out.write(request, 10, request.length - 10);
                    out.flush();
                    byte[] answer = new byte[request.length];
                    new DataInputStream(client.getInputStream()).readFully(answer);
                    long tookMs = (System.nanoTime() - sent) / 1_000_000;

                    assertArrayEquals(request, answer, "every byte, in order");
                    assertTrue(tookMs >= 150, "held for the delay, took " + tookMs + " ms");
                }
            }
        }
    }
}
