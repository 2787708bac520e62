package io.hivesink.metastore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.ProcessFunction;
import org.apache.thrift.TBase;
import org.apache.thrift.TBaseProcessor;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;

/**
 * A metastore that speaks the real Thrift wire protocol but serves only the methods a test gives it: every other
 * method gets the same "Invalid method name" answer an older server gives for a call it does not know. Tests can
 * also cut every open connection, as a restarting server or a broken network would.
 */
final class FakeThriftMetastore implements AutoCloseable {

    /** An answer to one Thrift method, from its arguments. */
    @FunctionalInterface
    interface Answer {
        Object answer(Object[] args) throws TException;
    }

    private final ServerSocket server;
    private final List<Socket> connections = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> calls = new HashMap<>();
    private final Thread acceptor;
    /** Raised by {@link #dropConnections()}: a connection of an older generation answers nothing more. */
    private final AtomicInteger generation = new AtomicInteger();
    private final ThreadLocal<Integer> connectionGeneration = new ThreadLocal<>();

    FakeThriftMetastore(Map<String, Answer> answers) throws IOException {
        this(answers, null);
    }

    /** As above; with a TLS context, over TLS (as a metastore with {@code metastore.use.SSL=true}). */
    @SuppressWarnings("rawtypes") // Thrift's TBaseProcessor takes its process functions with a raw TBase
    FakeThriftMetastore(Map<String, Answer> answers, SSLContext tls) throws IOException {
        this.server = tls == null ? new ServerSocket(0) : tls.getServerSocketFactory().createServerSocket(0);
        ThriftHiveMetastore.Iface handler = (ThriftHiveMetastore.Iface) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ThriftHiveMetastore.Iface.class},
                (proxy, method, args) -> {
                    Answer answer = answers.get(method.getName());
                    if (answer == null) {
                        throw new IllegalStateException("no answer for " + method.getName());
                    }
                    if (connectionGeneration.get() != generation.get()) {
                        // a request that raced the cut: the server neither runs nor answers it
                        throw new ConnectionCut();
                    }
                    counter(method.getName()).incrementAndGet();
                    return answer.answer(args);
                });
        Map<String, ProcessFunction<ThriftHiveMetastore.Iface, ? extends TBase>> served = new HashMap<>();
        new ThriftHiveMetastore.Processor<>(handler).getProcessMapView().forEach((name, function) -> {
            if (answers.containsKey(name)) {
                served.put(name, function);
            }
        });
        TBaseProcessor<ThriftHiveMetastore.Iface> processor = new TBaseProcessor<>(handler, served) { };
        acceptor = new Thread(() -> accept(processor), "fake-metastore-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void accept(TBaseProcessor<ThriftHiveMetastore.Iface> processor) {
        while (!server.isClosed()) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                return;
            }
            connections.add(socket);
            int born = generation.get();
            Thread serve = new Thread(() -> {
                connectionGeneration.set(born);
                try {
                    TBinaryProtocol protocol = new TBinaryProtocol(new TSocket(socket));
                    while (true) {
                        processor.process(protocol, protocol);
                    }
                } catch (TException | RuntimeException | ConnectionCut e) {
                    // the connection ended
                } finally {
                    close(socket);
                }
            }, "fake-metastore-connection");
            serve.setDaemon(true);
            serve.start();
        }
    }

    String uri() {
        return "thrift://127.0.0.1:" + server.getLocalPort();
    }

    synchronized AtomicInteger counter(String method) {
        return calls.computeIfAbsent(method, m -> new AtomicInteger());
    }

    /** Closes every open connection; the server goes on accepting new ones. */
    void dropConnections() {
        generation.incrementAndGet();
        connections.forEach(FakeThriftMetastore::close);
        connections.clear();
    }

    private static final class ConnectionCut extends Error {
        private static final long serialVersionUID = 1L;
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        dropConnections();
    }

}
