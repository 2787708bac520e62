package io.hivesink.it.readers;

import org.junit.jupiter.api.Test;

/** The reader matrix on a Hive metastore 4.0.1, read by HiveServer2 4.0.1 (its own execution and readers). */
class ReaderMatrix40IT extends ReaderMatrix {

    @Test
    void hiveServer2ReadsEveryFormatAsProduced() throws Exception {
        assertReadersAgreeWithTheOracle(KnownLimitations.ALL, MatrixReader.hive("hive-4.0.1", stack().hive()));
    }
}
