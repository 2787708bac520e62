package io.hivesink.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import io.hivesink.it.support.OnMetastore;
import io.hivesink.it.support.OutageChecks;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.hive.MetastoreRelease;
import io.hivesink.stack.spark.SparkSql;

/**
 * {@link OutageIT}'s metastore outage on a stock Hive 3.1.3 metastore on its own Derby schema, where every write of a
 * task's state is made under a metastore lock: the metastore's JVM killed for a minute while tasks write their states
 * under locks (a lock held at the kill stays in its database, and its holder's release fails), with a worker joining
 * during the outage. The tables are ORC here (Avro in {@link OutageIT}), counted through Spark with the 3.1.3 client.
 */
@OnMetastore(MetastoreRelease.HIVE_3_1)
class Outage31IT extends OutageIT {

    /** Counted through Spark once, after the last test: a Spark run costs a minute. */
    @Override
    OutageChecks checks() {
        SparkSql spark = stack.spark();
        return OutageChecks.countedAtTheEnd(stack, DATABASE, "orc", spark::query);
    }

    @AfterAll
    void countThroughSpark() throws Exception {
        checks.assertDeferredCounts();
    }

    /**
     * A task's own lock left in the metastore's database across a restart (its release failed while the metastore was
     * away, as a restart in the middle of a locked write leaves it): the task releases it at its next write of its
     * state, at once, instead of waiting for it for good. The lock is taken here, with the task's own agent info, on
     * the restarted metastore.
     */
    @Test
    void aLockOfTheTaskItselfLeftAcrossAMetastoreRestartIsReleasedAtOnce() throws Exception {
        String table = "hive_sink_state_own_lock_0";
        OutageChecks.Ridden ridden = checks.ridesOut("outage.ownlock", "own-lock", worker -> {
            String instance = worker.logLines().stream().map(INSTANCE::matcher).filter(Matcher::find)
                    .map(m -> m.group(1)).reduce((first, last) -> last).orElseThrow();
            stack.metastore().kill();
            stack.metastore().restart();
            try (ThriftMetastore metastore = ThriftMetastore.connect(new MetastoreSettings(
                    List.of(stack.metastore().uri()), false, "", ""))) {
                metastore.requestExclusiveLock("hive_sink", table, "hive-sink:" + instance);
                EmbeddedStack.await("the task to release its own lock", Duration.ofMinutes(1),
                        () -> metastore.locksOn("hive_sink", table).isEmpty());
            }
        });
        assertTrue(ridden.workerLog().stream().anyMatch(l -> l.contains("Releasing lock")
                && l.contains("this task instance holds no lock there")), "the task says why it released it");
    }

    private static final Pattern INSTANCE = Pattern.compile("hive-sink task 0 of own-lock started as (\\S+):");

    /** The NameNode's restart does not touch the metastore's fencing: {@link OutageIT} runs it, not this class. */
    @Override
    void aNameNodeRestartWhileRecordsFlowLosesAndDuplicatesNothing() {
    }
}
