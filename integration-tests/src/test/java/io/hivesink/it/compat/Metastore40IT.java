package io.hivesink.it.compat;

import java.nio.file.Path;
import java.util.Map;

import io.hivesink.commit.Fencing;
import io.hivesink.stack.hive.MetastoreRelease;

/**
 * {@link MetastoreCompatibility} on a Hive metastore 4.0.1 (auto-created schema), which checks compare-and-set; read
 * by HiveServer2 4.0.1.
 */
class Metastore40IT extends MetastoreCompatibility {

    Metastore40IT() {
        super(MetastoreRelease.HIVE_4_0, Map.of(), Fencing.COMPARE_AND_SET, "4.0.1");
    }

    @Override
    QueryEngine queryEngine(String metastoreUri, Path workDir) {
        return new HiveServer2Engine(metastoreUri, workDir, hdfsUri());
    }
}
