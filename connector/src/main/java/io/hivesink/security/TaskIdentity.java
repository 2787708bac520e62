package io.hivesink.security;

import java.io.File;
import java.io.IOException;
import java.security.AccessController;
import java.security.PrivilegedExceptionAction;
import javax.security.auth.Subject;
import javax.security.auth.kerberos.KerberosTicket;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who a task is to HDFS and the metastore: the worker's own user, or a Kerberos principal logged in from its keytab
 * for this task alone ({@code hadoop.kerberos.principal}, {@code hadoop.kerberos.keytab}).
 *
 * <p>A Kerberos identity is a {@link UserGroupInformation} of its own
 * ({@link UserGroupInformation#loginUserFromKeytabAndReturnUGI}): Hadoop's JVM-wide login user is never set, so two
 * connectors with different principals in one worker never write as each other (the failure of sinks that call
 * {@code loginUserFromKeytab}). Every FileSystem and metastore call runs inside it ({@link #call}), on the task
 * thread and on every thread of the task's pool ({@link #wrap}). Its ticket is renewed from the keytab before it
 * expires ({@link #renewIfDue}, called whenever Connect calls the task): Hadoop renews only its own login user.
 */
public final class TaskIdentity {

    private static final Logger log = LoggerFactory.getLogger(TaskIdentity.class);

    /** The worker's own user, as without Kerberos. */
    public static final TaskIdentity WORKER = new TaskIdentity(null, "the worker's user");

    /** Hadoop's security mode is one per class loader: switched on once, by the first Kerberos login. */
    private static final Object SECURITY_MODE = new Object();

    /** An action that may throw {@code E}. */
    @FunctionalInterface
    public interface Action<T, E extends Exception> {
        T run() throws E;
    }

    private final UserGroupInformation ugi;
    private final String name;
    private int renewalFailures;
    private int renewals;

    TaskIdentity(UserGroupInformation ugi, String name) {
        this.ugi = ugi;
        this.name = name;
    }

    /**
     * Logs {@code principal} in from {@code keytab}. {@code _HOST} in the principal is this worker's host name.
     *
     * @param hadoopConf the task's Hadoop configuration; when this is the first Kerberos login in the plugin, it also
     *     switches Hadoop's security mode (shared by all hive-sink connectors of the worker) to Kerberos
     * @throws ConnectException naming the principal, the keytab and what to check, if the login fails
     */
    public static TaskIdentity login(String principal, String keytab, Configuration hadoopConf) {
        File keytabFile = new File(keytab);
        if (!keytabFile.isFile() || !keytabFile.canRead()) {
            throw new ConnectException("The keytab " + keytab + " (hadoop.kerberos.keytab) is not a readable file on "
                    + "this worker. Every worker that may run the connector's tasks needs it, readable by the worker's "
                    + "OS user.");
        }
        String resolved;
        try {
            resolved = SecurityUtil.getServerPrincipal(principal, (String) null);
        } catch (IOException e) {
            throw new ConnectException("Cannot expand _HOST in hadoop.kerberos.principal " + principal + ": "
                    + e.getMessage(), e);
        }
        enableKerberos(hadoopConf);
        try {
            UserGroupInformation ugi = UserGroupInformation.loginUserFromKeytabAndReturnUGI(resolved, keytab);
            if (!ugi.hasKerberosCredentials()) {
                throw new IOException("no Kerberos credentials after the login");
            }
            log.info("Logged in to Kerberos as {} from {}; HDFS and metastore calls of this task run as {}", resolved,
                    keytab, ugi.getShortUserName());
            return new TaskIdentity(ugi, resolved);
        } catch (IOException e) {
            throw new ConnectException("Kerberos login of " + resolved + " with keytab " + keytab + " failed: "
                    + e.getMessage() + ". Check that the keytab holds the principal (klist -kt " + keytab + "), that "
                    + "the worker's krb5.conf (-Djava.security.krb5.conf) names a reachable KDC for its realm, and "
                    + "that the clocks of worker and KDC agree.", e);
        }
    }

    private static void enableKerberos(Configuration hadoopConf) {
        synchronized (SECURITY_MODE) {
            if (UserGroupInformation.isSecurityEnabled()) {
                return;
            }
            Configuration security = new Configuration(hadoopConf);
            security.set("hadoop.security.authentication", "kerberos");
            UserGroupInformation.setConfiguration(security);
            log.info("Hadoop security switched to Kerberos for the hive-sink plugin of this worker");
        }
    }

    /** Whether this is a Kerberos identity of the task's own. */
    public boolean isKerberos() {
        return ugi != null;
    }

    /**
     * Runs {@code action} as this identity, on the calling thread. Its exceptions reach the caller as they are.
     */
    @SuppressWarnings("unchecked") // failure holds what action.run() threw: a RuntimeException or an E
    public <T, E extends Exception> T call(Action<T, E> action) throws E {
        if (ugi == null) {
            return action.run();
        }
        Exception[] failure = new Exception[1];
        T result;
        try {
            result = ugi.doAs((PrivilegedExceptionAction<T>) () -> {
                try {
                    return action.run();
                } catch (Exception e) {
                    failure[0] = e;
                    return null;
                }
            });
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException("doAs failed although the action threw nothing", e);
        }
        if (failure[0] != null) {
            throw (E) failure[0];
        }
        return result;
    }

    /** Runs {@code action} as this identity. */
    public void run(Runnable action) {
        this.<Void, RuntimeException>call(() -> {
            action.run();
            return null;
        });
    }

    /** {@code action}, to run as this identity on whatever thread runs it (a pool thread). */
    public Runnable wrap(Runnable action) {
        return ugi == null ? action : () -> run(action);
    }

    /**
     * Logs in again from the keytab if the ticket is near its end (80% of its life; Hadoop's rule). Cheap otherwise.
     * A renewal is logged with the new ticket's end; a failed one is logged and tried again at the next call (the
     * calls fail once the ticket has expired).
     */
    public synchronized void renewIfDue() {
        if (ugi == null) {
            return;
        }
        try {
            // a relogin destroys the old ticket, its times with it
            KerberosTicket before = ticketGrantingTicket();
            long endBefore = before == null ? 0 : before.getEndTime().getTime();
            ugi.checkTGTAndReloginFromKeytab();
            renewalFailures = 0;
            KerberosTicket after = ticketGrantingTicket();
            if (after != null && after.getEndTime().getTime() != endBefore) {
                renewals++;
                log.info("Renewed the Kerberos ticket of {} from its keytab (renewal {}); valid until {}", name,
                        renewals, after.getEndTime().toInstant());
            }
        } catch (IOException e) {
            renewalFailures++;
            log.warn("Renewing the Kerberos ticket of {} from its keytab failed ({} time(s) in a row): {}. It is "
                    + "tried again at the task's next call; HDFS and metastore calls fail once the ticket has expired.",
                    name, renewalFailures, e.getMessage());
        }
    }

    /** The ticket-granting ticket the identity holds now, or null. */
    @SuppressWarnings("removal") // Subject.current() is JDK 18+; on 17 a doAs body sees its Subject this way
    private KerberosTicket ticketGrantingTicket() {
        Subject subject = this.<Subject, RuntimeException>call(() -> Subject.getSubject(AccessController.getContext()));
        for (KerberosTicket ticket : subject.getPrivateCredentials(KerberosTicket.class)) {
            if (ticket.getServer().getName().startsWith("krbtgt/")) {
                return ticket;
            }
        }
        return null;
    }

    /** Renewals from the keytab so far. */
    public synchronized int renewals() {
        return renewals;
    }

    /** Renewals that failed in a row, since the last that worked. */
    public synchronized int renewalFailures() {
        return renewalFailures;
    }

    /** The principal, or the worker's user. */
    public String describe() {
        return name;
    }

    @Override
    public String toString() {
        return "TaskIdentity[" + name + "]";
    }
}
