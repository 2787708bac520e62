package io.hivesink.metastore;

import java.io.IOException;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslException;

import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSSLTransportFactory;
import org.apache.thrift.transport.TSaslClientTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * One open connection to one metastore server: a socket (TLS if configured), Thrift's binary protocol, and either
 * SASL with Kerberos (GSSAPI, as the task's identity) or, on an unsecured metastore, the caller's user name handed
 * over with {@code set_ugi} as Hive's own client does (the server then acts, and creates objects, as that user).
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

    private ThriftConnection(URI uri, TSocket socket, TTransport transport) {
        this.uri = uri;
        this.socket = socket;
        // strict: every metastore sends the protocol's version first, and an answer without it is not a metastore's
        // (a URI that names another service's port), refused at once instead of read as a length to allocate
        this.client = new ThriftHiveMetastore.Client(new TBinaryProtocol(transport, true, true));
    }

    /**
     * Connects to {@code thrift://host:port}, as the task's identity: over SASL (Kerberos) if the settings say so,
     * else announcing the user with {@code set_ugi} as Hive's client does.
     */
    static ThriftConnection open(URI uri, MetastoreSettings settings) throws TException {
        return settings.identity().call(() -> openAsIdentity(uri, settings));
    }

    private static ThriftConnection openAsIdentity(URI uri, MetastoreSettings settings) throws TException {
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
        if (settings.sasl()) {
            TTransport sasl;
            try {
                sasl = saslTransport(uri, settings, socket);
                sasl.open();
            } catch (TTransportException e) {
                socket.close();
                throw new SaslHandshakeException("SASL (Kerberos) handshake with the metastore at " + uri + " as "
                        + settings.identity().describe() + " to the service principal " + serverPrincipal(uri, settings)
                        + " failed: " + ThriftCalls.rootMessage(e) + ". Check "
                        + "hive.metastore.kerberos.principal (the metastore's metastore.kerberos.principal), that the "
                        + "metastore has metastore.sasl.enabled=true, that the task logged in "
                        + "(hadoop.kerberos.principal, hadoop.kerberos.keytab), and the worker's krb5.conf "
                        + "(-Djava.security.krb5.conf).", e);
            }
            return new ThriftConnection(uri, socket, sasl);
        }
        ThriftConnection connection = new ThriftConnection(uri, socket, socket);
        try {
            connection.client.set_ugi(userName(), groupNames());
        } catch (TException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return connection;
    }

    /** The GSSAPI transport Hive's client opens: service and host from the metastore's principal. */
    /** hive.metastore.kerberos.principal with {@code _HOST} the host of the URI, as the metastore's keytab has it. */
    private static String serverPrincipal(URI uri, MetastoreSettings settings) {
        return settings.saslPrincipal().replace("_HOST", uri.getHost().toLowerCase(Locale.ROOT));
    }

    private static TTransport saslTransport(URI uri, MetastoreSettings settings, TSocket socket)
            throws TTransportException {
        String principal = serverPrincipal(uri, settings);
        String[] parts = principal.split("[/@]", -1);
        if (parts.length != 3) {
            throw new TTransportException("The metastore principal " + principal + " is not service/host@REALM");
        }
        try {
            return new TSaslClientTransport("GSSAPI", null, parts[0], parts[1],
                    Map.of(Sasl.QOP, settings.saslQop(), Sasl.SERVER_AUTH, "true"), null, socket);
        } catch (SaslException e) {
            throw new TTransportException("no GSSAPI SASL client for " + principal + ": " + e.getMessage(), e);
        }
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

    /** The SASL handshake failed: not a metastore that is down, so its message says what to check instead. */
    static final class SaslHandshakeException extends TTransportException {
        private static final long serialVersionUID = 1L;

        SaslHandshakeException(String message, Throwable cause) {
            super(message, cause);
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
