package io.hivesink.it.compat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.hivesink.stack.hive.HiveSql;

/** HiveServer2 4.0.1 in a child JVM, whose metastore client is Hive 4.0's own, as a {@code QueryEngine}. */
final class HiveServer2Engine implements MetastoreCompatibility.QueryEngine {

    private final String metastoreUri;
    private final Path workDir;
    private final String defaultFs;

    HiveServer2Engine(String metastoreUri, Path workDir, String defaultFs) {
        this.metastoreUri = metastoreUri;
        this.workDir = workDir;
        this.defaultFs = defaultFs;
    }

    @Override
    public List<List<List<String>>> query(String... statements) {
        try (HiveSql hive = HiveSql.start(workDir, metastoreUri, defaultFs)) {
            List<List<List<String>>> results = new ArrayList<>();
            for (String statement : statements) {
                results.add(hive.query(statement));
            }
            return results;
        }
    }
}
