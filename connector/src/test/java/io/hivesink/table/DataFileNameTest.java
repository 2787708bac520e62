package io.hivesink.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

class DataFileNameTest {

    @Test
    void aNameBuiltGivesItsBatchBack() {
        String batch = "b7c1-0001-task-3";
        for (String extension : new String[] {".parquet", ".orc", ".avro", ""}) {
            String name = DataFileName.of(batch, 12, extension);
            assertTrue(name.startsWith("part-" + batch + "-00012"), name);
            assertEquals(Optional.of(batch), DataFileName.batchOf(name));
        }
    }

    @Test
    void namesNotOfTheConnectorCarryNoBatch() {
        assertEquals(Optional.empty(), DataFileName.batchOf("000000_0"));
        assertEquals(Optional.empty(), DataFileName.batchOf("part-00000-c0ffee.snappy.parquet"), "Spark's");
        assertEquals(Optional.empty(), DataFileName.batchOf("_SUCCESS"));
        assertEquals(Optional.empty(), DataFileName.batchOf("part-x-1.avro"));
    }
}
