package io.hivesink.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

class ConfluentFrameTest {

    @Test
    void readsTheSchemaIdAndWhereTheDatumIs() {
        byte[] value = ConfluentFrame.frame(0x01020304, new byte[] {7, 8, 9});
        assertEquals(8, value.length);
        ConfluentFrame frame = ConfluentFrame.of(value);
        assertEquals(0x01020304, frame.schemaId());
        assertEquals(5, frame.offset());
        assertEquals(3, frame.length());
        assertEquals(Integer.MAX_VALUE + 1L, Integer.toUnsignedLong(ConfluentFrame.of(
                ConfluentFrame.frame(Integer.MIN_VALUE, new byte[0])).schemaId()), "all four bytes count");
    }

    @Test
    void valuesThatAreNotFramedSayWhatTheyLookLike() {
        DataException json = assertThrows(DataException.class,
                () -> ConfluentFrame.of("{\"id\":1}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(json.getMessage().contains("0x7B") && json.getMessage().contains("JSON"), json.getMessage());
        DataException truncated = assertThrows(DataException.class, () -> ConfluentFrame.of(new byte[] {0, 0, 1}));
        assertTrue(truncated.getMessage().contains("truncated"), truncated.getMessage());
        DataException tombstone = assertThrows(DataException.class, () -> ConfluentFrame.of(null));
        assertTrue(tombstone.getMessage().contains("tombstone"), tombstone.getMessage());
    }
}
