package io.hivesink.table;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class HivePathsTest {

    @Test
    void partitionDirectoriesAreEscapedLikeHive() {
        assertEquals("a%2Fb", HivePaths.escapePathName("a/b"));
        assertEquals("x%3Dy%3A%25", HivePaths.escapePathName("x=y:%"));
        assertEquals("caf\u00e9 ok", HivePaths.escapePathName("caf\u00e9 ok"));
        assertEquals("__HIVE_DEFAULT_PARTITION__", HivePaths.escapePathName(null));
        assertEquals("%01tab%09", HivePaths.escapePathName("\u0001tab\t"));
    }
}
