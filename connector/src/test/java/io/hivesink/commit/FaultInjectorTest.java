package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.kafka.connect.errors.RetriableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The crash tests' switch: a retriable failure for a while, and a spec read from a file as it changes. */
class FaultInjectorTest {

    @TempDir
    Path dir;

    @Test
    void failModeFailsEveryCommitAtThePointForItsDurationFromTheNthTime() throws InterruptedException {
        FaultInjector faults = FaultInjector.parse("ALL_MOVED:2:fail=300");
        faults.reached(FaultPoint.ALL_MOVED); // the first time: not yet
        faults.reached(FaultPoint.INTENT_DURABLE); // another point: never
        RetriableException e = assertThrows(RetriableException.class, () -> faults.reached(FaultPoint.ALL_MOVED));
        assertTrue(e.getMessage().contains("ALL_MOVED"), e.getMessage());
        assertThrows(RetriableException.class, () -> faults.reached(FaultPoint.ALL_MOVED), "and again, for a while");
        Thread.sleep(350);
        faults.reached(FaultPoint.ALL_MOVED); // the outage is over
    }

    @Test
    void aFileSpecIsReadAgainWhenItChanges() throws IOException {
        Path file = dir.resolve("fault");
        FaultInjector faults = new FaultInjector.FromFile(file);
        faults.reached(FaultPoint.MARKED); // no file: nothing
        Files.writeString(file, "MARKED:1:fail=60000");
        assertThrows(RetriableException.class, () -> faults.reached(FaultPoint.MARKED));
        Files.writeString(file, "REGISTERED:1:fail=60000");
        faults.reached(FaultPoint.MARKED);
        assertThrows(RetriableException.class, () -> faults.reached(FaultPoint.REGISTERED));
        Files.writeString(file, "");
        faults.reached(FaultPoint.REGISTERED);
    }
}
