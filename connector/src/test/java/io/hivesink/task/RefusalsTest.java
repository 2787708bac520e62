package io.hivesink.task;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.junit.jupiter.api.Test;

import io.hivesink.metastore.MetastoreException;
import io.hivesink.metastore.MetastoreRefusedException;

class RefusalsTest {

    private final AtomicLong now = new AtomicLong(0);
    private final Refusals refusals = new Refusals(now::get, 60_000);

    @Test
    void anOutageIsWaitedOutHoweverLongAndARefusalIsGivenItsTimeAndFiveTries() {
        for (int i = 0; i < 100; i++) {
            now.addAndGet(10_000);
            refusals.failed(new MetastoreException("Cannot connect to the Hive metastore", null));
        }
        RetriableException refused = new RetriableException("commit held",
                new MetastoreRefusedException("Column name too long", null));
        for (int i = 0; i < 4; i++) {
            refusals.failed(refused);
            now.addAndGet(30_000);
        }
        ConnectException e = assertThrows(ConnectException.class, () -> refusals.failed(refused));
        assertTrue(e.getMessage().contains("Column name too long") && !(e instanceof RetriableException),
                e.getMessage());

        refusals.clear();
        refusals.failed(refused); // a call that went through starts the count again
    }

    @Test
    void theMetastoresWordsTellAnErrorThatPassesFromARefusal() {
        assertTrue(MetastoreRefusedException.mayPass("javax.jdo.JDOFatalDataStoreException: Unable to open a test "
                + "connection to the given database"));
        assertTrue(MetastoreRefusedException.mayPass("Lock wait timeout exceeded; try restarting transaction"));
        assertTrue(MetastoreRefusedException.mayPass("Communications link failure"));
        assertTrue(MetastoreRefusedException.mayPass(null));
        assertFalse(MetastoreRefusedException.mayPass("Duplicate column name in table 'orders': 'id'"));
        assertFalse(MetastoreRefusedException.mayPass("Add request failed : INSERT INTO TABLE_PARAMS ... "
                + "A truncation error was encountered trying to shrink VARCHAR"));
        // the metastore appends a stack trace whose frames name retrying and transactions, whatever the error
        assertFalse(MetastoreRefusedException.mayPass("Duplicate column name 'id'\n\tat org.apache.hadoop.hive."
                + "metastore.RetryingHMSHandler.invoke\n\tat ...ObjectStore.commitTransaction"));
        assertTrue(MetastoreRefusedException.mayPass("Got exception: org.apache.hadoop.hdfs.server.namenode."
                + "SafeModeException Cannot create directory /w/t. Name node is in safe mode."));
    }
}
