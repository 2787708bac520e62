package io.hivesink.commit;

import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles, when a task run starts, how writes to task states are fenced on this metastore: by compare-and-set if the
 * metastore checks it (probed with a stale and a current expectation), else by the metastore's locks, else not at
 * all, and then the task refuses to start, saying why and what to do.
 */
final class FencingProbe {

    private static final Logger log = LoggerFactory.getLogger(FencingProbe.class);

    private FencingProbe() {
    }

    /**
     * @return the fencing in use, set on {@code states}
     * @throws ConnectException if the requested fencing cannot work on this metastore
     */
    static Fencing settle(StateTables states, OwnState own, TaskRun run, Fencing requested) {
        String casProblem = null;
        if (requested != Fencing.LOCKS) {
            StateTables.CompareAndSet probed = states.probeCompareAndSet(own.stored());
            own.reload();
            if (probed == StateTables.CompareAndSet.CHECKED) {
                states.use(Fencing.COMPARE_AND_SET);
                return Fencing.COMPARE_AND_SET;
            }
            casProblem = probed == StateTables.CompareAndSet.IGNORED
                    ? "it accepts alter_table with an expected parameter value but does not check it (Hive 3.x and "
                            + "2.x before 2.3.10 do this)"
                    : "it refuses alter_table with an expected parameter value even when the value matches (Hive 4 "
                            + "does this with metastore.try.direct.sql=false, or on a Derby schema made by schematool)";
            if (requested == Fencing.COMPARE_AND_SET) {
                throw new ConnectException("hive-sink cannot fence zombie tasks by compare-and-set on the "
                        + states.metastoreDescription() + ": " + casProblem
                        + ". Set hive.metastore.fencing=auto or locks.");
            }
        }
        String lockProblem = states.lockProblem(run.task());
        if (lockProblem != null) {
            throw new ConnectException("hive-sink cannot fence zombie tasks on the "
                    + states.metastoreDescription() + ": " + (casProblem == null ? "" : casProblem + ", and ")
                    + "its lock API fails (" + lockProblem + "). Locks need the metastore's transaction tables (a "
                    + "schema made by schematool); or use a metastore 2.3.10+ or 4.x with direct SQL on, which "
                    + "checks compare-and-set.");
        }
        log.info("Task {} of {} fences by metastore locks{}", run.task(), run.connector(),
                casProblem == null ? "" : ": compare-and-set cannot be used, " + casProblem);
        states.use(Fencing.LOCKS);
        return Fencing.LOCKS;
    }
}
