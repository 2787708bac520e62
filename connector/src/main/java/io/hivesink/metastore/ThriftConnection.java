package io.hivesink.metastore;

import java.io.IOException;
import java.net.URI;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSSLTransportFactory;
import org.apache.thrift.transport.TSocket;

/**
 * One open connection to one metastore server: a socket (TLS if configured), Thrift's binary protocol, and the
 * caller's user name handed over with {@code set_ugi}, as Hive's own client does on an unsecured metastore (the
 * server then acts, and creates objects, as that user).
 *
 * <p>It speaks to the generated Thrift client directly rather than through Hive's {@code HiveMetaStoreClient},
 * which calls methods that only the newest servers serve; {@link ThriftMetastore} picks the calls.
 */
final class ThriftConnection implements AutoCloseable {

    /** Opening a TCP connection: a server that does not accept within this is taken as down. */
    static final int CONNECT_TIMEOUT_MS = 15_000;
    /** Waiting for an answer: Hive's client default (add_partitions of thousands of partitions takes minutes). */
    static final int SOCKET_TIMEOUT_MS = 600_000;
    /** Hive's client default; Thrift's own (100 MB) is too small for the partition lists of large tables. */
    private static final int MAX_MESSAGE_BYTES = 1024 * 1024 * 1024;

    private final URI uri;
    private final TSocket socket;
    private final ThriftHiveMetastore.Client client;

    private ThriftConnection(URI uri, TSocket socket) {
        this.uri = uri;
        this.socket = socket;
        this.client = new ThriftHiveMetastore.Client(new TBinaryProtocol(socket));
    }

    /** Connects to {@code thrift://host:port} and announces the user. */
    static ThriftConnection open(URI uri, MetastoreSettings settings) throws TException {
        TSocket socket;
        if (settings.sslEnabled()) {
            TSSLTransportFactory.TSSLTransportParameters tls = new TSSLTransportFactory.TSSLTransportParameters();
            tls.setTrustStore(settings.truststorePath(), settings.truststorePassword());
            socket = TSSLTransportFactory.getClientSocket(uri.getHost(), uri.getPort(), SOCKET_TIMEOUT_MS, tls);
        } else {
            socket = new TSocket(new TConfiguration(), uri.getHost(), uri.getPort(), SOCKET_TIMEOUT_MS,
                    CONNECT_TIMEOUT_MS);
            socket.open();
        }
        // read before each answer (the transport resets its count when a request is flushed)
        socket.getConfiguration().setMaxMessageSize(MAX_MESSAGE_BYTES);
        ThriftConnection connection = new ThriftConnection(uri, socket);
        try {
            connection.client.set_ugi(userName(), groupNames());
        } catch (TException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return connection;
    }

    URI uri() {
        return uri;
    }

    ThriftHiveMetastore.Client client() {
        return client;
    }

    private static String userName() {
        try {
            return UserGroupInformation.getCurrentUser().getShortUserName();
        } catch (IOException e) {
            return System.getProperty("user.name");
        }
    }

    private static List<String> groupNames() {
        try {
            return Arrays.asList(UserGroupInformation.getCurrentUser().getGroupNames());
        } catch (IOException e) {
            return List.of();
        }
    }

    /**
     * Closes the socket itself: Thrift's own close first flushes its streams, which on a broken or refused TLS
     * connection logs a warning with a stack trace for a connection that is gone anyway.
     */
    @Override
    public void close() {
        try {
            socket.getSocket().close();
        } catch (IOException e) {
            // already closed
        }
    }
}
