package io.hivesink.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TaskIdentityTest {

    private static String currentUser() throws IOException {
        return UserGroupInformation.getCurrentUser().getShortUserName();
    }

    @Test
    void callsRunAsTheIdentityOnTheTaskThreadAndOnPoolThreadsAndNowhereElse() throws Exception {
        String worker = currentUser();
        TaskIdentity alice = new TaskIdentity(UserGroupInformation.createRemoteUser("alice"), "alice");
        assertEquals("alice", alice.call(TaskIdentityTest::currentUser));
        assertEquals(worker, currentUser(), "the calling thread is itself again afterwards");

        ExecutorService pool = Executors.newFixedThreadPool(2, runnable -> new Thread(alice.wrap(runnable)));
        try {
            for (int i = 0; i < 4; i++) {
                assertEquals("alice", pool.submit(TaskIdentityTest::currentUser).get());
            }
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
        assertEquals(worker, TaskIdentity.WORKER.call(TaskIdentityTest::currentUser));
        assertFalse(TaskIdentity.WORKER.isKerberos());
    }

    @Test
    void whatAnActionThrowsReachesTheCallerAsItIs() {
        TaskIdentity bob = new TaskIdentity(UserGroupInformation.createRemoteUser("bob"), "bob");
        IOException checked = new IOException("disk gone");
        assertSame(checked, assertThrows(IOException.class, () -> bob.call(() -> {
            throw checked;
        })));
        IllegalStateException unchecked = new IllegalStateException("bad state");
        assertSame(unchecked, assertThrows(IllegalStateException.class, () -> bob.run(() -> {
            throw unchecked;
        })));
    }

    @Test
    void aKeytabThatIsNotThereIsNamedWithWhatToDo(@TempDir Path dir) {
        String keytab = dir.resolve("missing.keytab").toString();
        ConnectException e = assertThrows(ConnectException.class,
                () -> TaskIdentity.login("sink@EXAMPLE.COM", keytab, new Configuration(false)));
        assertTrue(e.getMessage().contains(keytab) && e.getMessage().contains("hadoop.kerberos.keytab")
                && e.getMessage().contains("Every worker"), e.getMessage());
    }

    @Test
    void theQualityOfProtectionFollowsHadoopRpcProtection() {
        Configuration conf = new Configuration(false);
        assertEquals("auth", SaslQop.of(conf));
        conf.set("hadoop.rpc.protection", "privacy, integrity");
        assertEquals("auth-conf,auth-int", SaslQop.of(conf));
        conf.set("hadoop.rpc.protection", "secret");
        assertThrows(IllegalArgumentException.class, () -> SaslQop.of(conf));
    }
}
