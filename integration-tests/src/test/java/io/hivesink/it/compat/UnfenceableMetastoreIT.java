package io.hivesink.it.compat;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;

import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.hivesink.commit.FaultInjector;
import io.hivesink.commit.Fencing;
import io.hivesink.stack.commit.CommitRig;
import io.hivesink.stack.commit.RigStack;
import io.hivesink.stack.hive.MetastoreRelease;

/**
 * A metastore the connector cannot fence on: a stock 3.1.3 (which ignores compare-and-set) whose schema DataNucleus
 * created, so it has no lock tables. The task refuses to start, naming the server, what it tried and what to do.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnfenceableMetastoreIT {

    private RigStack stack;
    private CommitRig rig;

    @BeforeAll
    void start() throws Exception {
        stack = RigStack.start(Path.of("target", "it-stack", "UnfenceableMetastoreIT"), MetastoreRelease.HIVE_3_1,
                Map.of());
        rig = stack.rig("unfenced");
    }

    @AfterAll
    void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void autoRefusesToStartSayingWhatItTriedAndWhatToDo() {
        ConnectException e = assertThrows(ConnectException.class,
                () -> rig.task("auto-sink", 0, FaultInjector.NONE, Fencing.AUTO));
        String message = e.getMessage();
        assertTrue(message.startsWith("hive-sink cannot fence zombie tasks on the Hive metastore 3.x at "
                + stack.metastoreProcess().uri() + " "), message);
        assertTrue(message.contains("it accepts alter_table with an expected parameter value but does not check it"),
                message);
        assertTrue(message.contains("and its lock API fails (Metastore call lock unfenced."), message);
        assertTrue(message.contains("Locks need the metastore's transaction tables (a schema made by schematool); "
                + "or use a metastore 2.3.10+ or 4.x with direct SQL on, which checks compare-and-set."), message);
    }

    @Test
    void compareAndSetAskedForIsRefusedNamingTheSetting() {
        ConnectException e = assertThrows(ConnectException.class,
                () -> rig.task("cas-sink", 0, FaultInjector.NONE, Fencing.COMPARE_AND_SET));
        assertTrue(e.getMessage().startsWith("hive-sink cannot fence zombie tasks by compare-and-set on the Hive "
                + "metastore 3.x at " + stack.metastoreProcess().uri()), e.getMessage());
        assertTrue(e.getMessage().endsWith("Set hive.metastore.fencing=auto or locks."), e.getMessage());
    }
}
