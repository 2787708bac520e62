package io.hivesink.it.compat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.hivesink.commit.Fencing;
import io.hivesink.it.hive.HiveSql;
import io.hivesink.it.hive.MetastoreRelease;

/** {@link MetastoreCompatibility} on a Hive metastore 4.0.1 (auto-created schema): compare-and-set. */
class Metastore40IT extends MetastoreCompatibility {

    @Override
    MetastoreRelease release() {
        return MetastoreRelease.HIVE_4_0;
    }

    @Override
    Map<String, String> metastoreSettings() {
        return Map.of();
    }

    @Override
    Fencing expectedFencing() {
        return Fencing.COMPARE_AND_SET;
    }

    @Override
    String expectedRelease() {
        return "4.0.1";
    }

    /** HiveServer2 4.0.1 (in a child JVM), whose client is this metastore's own. */
    @Override
    QueryEngine queryEngine(String metastoreUri, Path workDir) {
        return statements -> {
            try (HiveSql hive = HiveSql.start(workDir, metastoreUri, hdfsUri())) {
                List<List<List<String>>> results = new ArrayList<>();
                for (String statement : statements) {
                    results.add(hive.query(statement));
                }
                return results;
            }
        };
    }
}
