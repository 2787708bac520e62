package io.hivesink.it.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AccessController;
import java.util.Date;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.security.auth.Subject;
import javax.security.auth.kerberos.KerberosTicket;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.hivesink.security.TaskIdentity;

/**
 * Task identities against a real KDC (Apache Kerby, in this JVM; this class runs in a JVM of its own): two
 * principals logged in side by side each run their calls, on the calling thread and on pool threads, as themselves,
 * and neither becomes Hadoop's JVM-wide login user; a ticket with a 30-second life is renewed from the keytab.
 * What HDFS and the metastore make of these identities is for the kerberized stack's tests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KerberosLoginIT {

    private static final long TICKET_SECONDS = 30;

    private MiniKdc kdc;
    private File aliceKeytab;
    private File bobKeytab;
    private final Configuration hadoopConf = new Configuration(false);

    @BeforeAll
    void startKdc() throws Exception {
        Path work = Files.createDirectories(Path.of("target", "it-stack", "KerberosLoginIT").toAbsolutePath());
        Properties conf = MiniKdc.createConf();
        conf.setProperty(MiniKdc.MAX_TICKET_LIFETIME, Long.toString(TICKET_SECONDS));
        conf.setProperty(MiniKdc.MIN_TICKET_LIFETIME, Long.toString(TICKET_SECONDS));
        kdc = new MiniKdc(conf, work.toFile());
        kdc.start();
        aliceKeytab = work.resolve("alice.keytab").toFile();
        bobKeytab = work.resolve("bob.keytab").toFile();
        kdc.createPrincipal(aliceKeytab, "alice");
        kdc.createPrincipal(bobKeytab, "bob");
        // Hadoop waits this long between logins; the short ticket needs a short wait
        hadoopConf.set("hadoop.kerberos.min.seconds.before.relogin", "1");
    }

    @AfterAll
    void stopKdc() {
        if (kdc != null) {
            kdc.stop();
        }
    }

    private String principal(String user) {
        return user + "@" + kdc.getRealm();
    }

    private static String currentUser() throws Exception {
        return UserGroupInformation.getCurrentUser().getUserName();
    }

    @Test
    void twoPrincipalsInOneJvmEachRunAsThemselvesOnEveryThreadAndNeitherIsTheLoginUser() throws Exception {
        TaskIdentity alice = TaskIdentity.login(principal("alice"), aliceKeytab.getPath(), hadoopConf);
        TaskIdentity bob = TaskIdentity.login(principal("bob"), bobKeytab.getPath(), hadoopConf);
        assertTrue(alice.isKerberos() && bob.isKerberos());
        assertEquals(principal("alice"), alice.call(KerberosLoginIT::currentUser));
        assertEquals(principal("bob"), bob.call(KerberosLoginIT::currentUser));

        ExecutorService alicePool = Executors.newFixedThreadPool(2, r -> new Thread(alice.wrap(r)));
        ExecutorService bobPool = Executors.newFixedThreadPool(2, r -> new Thread(bob.wrap(r)));
        try {
            for (int i = 0; i < 4; i++) {
                assertEquals(principal("alice"), alicePool.submit(KerberosLoginIT::currentUser).get());
                assertEquals(principal("bob"), bobPool.submit(KerberosLoginIT::currentUser).get());
            }
        } finally {
            alicePool.shutdownNow();
            bobPool.shutdownNow();
            assertTrue(alicePool.awaitTermination(10, TimeUnit.SECONDS));
            assertTrue(bobPool.awaitTermination(10, TimeUnit.SECONDS));
        }
        String loginUser = UserGroupInformation.getLoginUser().getUserName();
        assertNotEquals(principal("alice"), loginUser, "the JVM-wide login user is untouched");
        assertNotEquals(principal("bob"), loginUser, "the JVM-wide login user is untouched");
    }

    @Test
    void aShortTicketIsRenewedFromTheKeytabBeforeItEnds() throws Exception {
        TaskIdentity alice = TaskIdentity.login(principal("alice"), aliceKeytab.getPath(), hadoopConf);
        KerberosTicket first = ticketGrantingTicket(alice);
        // a relogin destroys the old ticket, and with it its times: keep them
        Date firstStart = first.getStartTime();
        Date firstEnd = first.getEndTime();
        long lifeMs = firstEnd.getTime() - firstStart.getTime();
        assertTrue(lifeMs <= TICKET_SECONDS * 1000 + 1000, "the KDC gave a short ticket: " + lifeMs + " ms");

        alice.renewIfDue();
        assertEquals(firstEnd, ticketGrantingTicket(alice).getEndTime(), "not renewed before it is due");

        // Hadoop renews at 80% of the ticket's life
        long due = firstStart.getTime() + lifeMs * 8 / 10 + 1000;
        Thread.sleep(Math.max(0, due - System.currentTimeMillis()));
        alice.renewIfDue();
        Date renewedEnd = ticketGrantingTicket(alice).getEndTime();
        assertTrue(renewedEnd.after(firstEnd), "renewed: " + firstEnd + " -> " + renewedEnd);
        assertEquals(0, alice.renewalFailures());
        assertEquals(principal("alice"), alice.call(KerberosLoginIT::currentUser));
    }

    /** The identity's ticket-granting ticket, read from the Subject its calls run with. */
    @SuppressWarnings("removal") // Subject.current() is JDK 18+; on 17 this is how a doAs body sees its Subject
    private static KerberosTicket ticketGrantingTicket(TaskIdentity identity) throws Exception {
        Subject subject = identity.call(() -> Subject.getSubject(AccessController.getContext()));
        for (KerberosTicket ticket : subject.getPrivateCredentials(KerberosTicket.class)) {
            if (ticket.getServer().getName().startsWith("krbtgt/")) {
                return ticket;
            }
        }
        throw new AssertionError("no ticket-granting ticket in " + subject);
    }
}
