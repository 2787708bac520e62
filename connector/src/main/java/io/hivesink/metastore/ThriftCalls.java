package io.hivesink.metastore;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.hadoop.hive.metastore.api.InvalidObjectException;
import org.apache.hadoop.hive.metastore.api.InvalidOperationException;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thrift calls to the metastore over one connection at a time: opened to the first URI that answers (from the one
 * after the last used), reopened when it breaks, and a call that may be repeated tried again; every failure named by
 * its call, its object and the URIs. Not thread-safe: {@link ThriftMetastore} serialises its calls.
 */
final class ThriftCalls implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ThriftCalls.class);

    /** Rounds over all URIs when connecting, and tries of a call whose connection broke. */
    private static final int ATTEMPTS = 3;
    private static final long RETRY_DELAY_MS = 1_000;

    private final MetastoreSettings settings;
    private final List<URI> uris;
    private final String urisText;
    private ThriftConnection connection;
    private int nextUri;
    private MetastoreServer server;
    private MetastoreCallObserver observer = MetastoreCallObserver.NONE;

    ThriftCalls(MetastoreSettings settings) {
        this.settings = settings;
        this.uris = parse(settings.uris());
        this.urisText = String.join(",", settings.uris());
    }

    void observe(MetastoreCallObserver observer) {
        this.observer = observer;
    }

    /** The server of the current connection (connecting if none is open), as it identified itself. */
    MetastoreServer server() {
        connection();
        return server;
    }

    String describe() {
        return server == null ? "Hive metastore at " + urisText : server.describe();
    }

    String urisText() {
        return urisText;
    }

    /** A call, repeated on a broken connection, whose every failure is the caller's error ({@link #failed}). */
    <T> T run(String method, String what, Call<T> call) {
        try {
            return call(method, what, true, call);
        } catch (TException e) {
            throw failed(method + " " + what, e);
        }
    }

    /** A look-up, repeated on a broken connection: empty if the object does not exist. */
    <T> Optional<T> find(String method, String what, Call<T> call) {
        try {
            return Optional.of(call(method, what, true, call));
        } catch (NoSuchObjectException e) {
            return Optional.empty();
        } catch (TException e) {
            throw failed(method + " " + what, e);
        }
    }

    @FunctionalInterface
    interface Call<T> {
        T on(ThriftHiveMetastore.Client client) throws TException;
    }

    /**
     * Runs one Thrift call on the open connection (opening one if needed). A broken connection is dropped and, for a
     * call that may be repeated, reopened and the call tried again; "Invalid method name" becomes
     * {@link UnsupportedMetastoreException}. Other answers (the declared exceptions) go to the caller.
     */
    <T> T call(String method, String what, boolean repeatable, Call<T> call) throws TException {
        long started = System.nanoTime();
        int attempt = 0;
        // the declared exceptions (no such object, already exists, ...) are answers; these are failures
        boolean failed = true;
        try {
            while (true) {
                attempt++;
                ThriftConnection open = connection();
                try {
                    T answer = answerInStep(call, open);
                    failed = false;
                    return answer;
                } catch (TTransportException | TProtocolException e) {
                    close();
                    if (!repeatable || attempt >= ATTEMPTS) {
                        throw e;
                    }
                    log.warn("Metastore call {} {} on {} lost its connection ({}); reconnecting", method, what,
                            open.uri(), rootMessage(e));
                    pause(attempt);
                } catch (TApplicationException e) {
                    if (e.getType() == TApplicationException.UNKNOWN_METHOD) {
                        throw UnsupportedMetastoreException.missingCall(server, method, what);
                    }
                    throw e;
                } catch (MetaException e) {
                    throw e; // the server failed
                } catch (TException e) {
                    failed = false;
                    throw e;
                }
            }
        } finally {
            observer.called((System.nanoTime() - started) / 1_000_000, attempt, failed);
        }
    }

    /**
     * The call's answer. One the client itself finds out of step with the call (another call's sequence number, a
     * message that is no answer) means the connection is out of step, and this call's answer lost: a broken
     * connection, as far as the caller can tell.
     */
    private static <T> T answerInStep(Call<T> call, ThriftConnection open) throws TException {
        try {
            return call.on(open.client());
        } catch (TApplicationException e) {
            if (e.getType() == TApplicationException.BAD_SEQUENCE_ID
                    || e.getType() == TApplicationException.INVALID_MESSAGE_TYPE) {
                throw new TTransportException("an answer out of step with the call (" + e.getMessage() + ")", e);
            }
            throw e;
        }
    }

    /** The open connection, or a new one to the first URI (from the one after the last used) that answers. */
    private ThriftConnection connection() {
        if (connection != null) {
            return connection;
        }
        TException last = null;
        for (int round = 1; round <= ATTEMPTS; round++) {
            for (int i = 0; i < uris.size(); i++) {
                URI uri = uris.get(nextUri);
                nextUri = (nextUri + 1) % uris.size();
                ThriftConnection opened = null;
                try {
                    opened = ThriftConnection.open(uri, settings);
                    MetastoreServer identified = MetastoreServer.identify(uri.toString(), opened.client());
                    if (!identified.equals(server)) {
                        log.info("Connected to {}", identified.describe());
                    }
                    server = identified;
                    connection = opened;
                    return opened;
                } catch (TException e) {
                    if (opened != null) {
                        opened.close();
                    }
                    last = e;
                }
            }
            if (round < ATTEMPTS) {
                pause(round);
            }
        }
        if (last instanceof ThriftConnection.SaslHandshakeException) {
            throw new MetastoreException(last.getMessage(), last); // it says what to check
        }
        throw new MetastoreUnreachableException("Cannot connect to the Hive metastore at " + urisText + " ("
                + rootMessage(last) + "). Check hive.metastore.uris and that the metastore is running.", last);
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(RETRY_DELAY_MS * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MetastoreException("Interrupted while reconnecting to the metastore", e);
        }
    }

    private static List<URI> parse(List<String> uris) {
        List<URI> parsed = new ArrayList<>();
        for (String text : uris) {
            try {
                URI uri = new URI(text.strip());
                if (!"thrift".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
                    throw new URISyntaxException(text, "expected thrift://host:port");
                }
                parsed.add(uri);
            } catch (URISyntaxException e) {
                throw new ConnectException("Invalid Hive metastore URI '" + text + "' in hive.metastore.uris: "
                        + "expected thrift://host:port.", e);
            }
        }
        if (parsed.isEmpty()) {
            throw new ConnectException("hive.metastore.uris is empty: give at least one thrift://host:port.");
        }
        return parsed;
    }

    /**
     * Rejections of what we sent are permanent; the metastore's own errors are refusals unless their words say they
     * pass (its database away or busy); anything else (connection, server) may pass.
     */
    RuntimeException failed(String call, Exception e) {
        String message = "Metastore call " + call + " on " + urisText + " failed: " + rootMessage(e);
        if (e instanceof InvalidObjectException || e instanceof InvalidOperationException) {
            return new ConnectException(message, e);
        }
        if (e instanceof MetaException && !MetastoreRefusedException.mayPass(e.getMessage())) {
            return new MetastoreRefusedException(message, e);
        }
        return new MetastoreException(message, e);
    }

    static String rootMessage(Throwable e) {
        if (e == null) {
            return "no URI to try";
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    @Override
    public void close() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }
}
