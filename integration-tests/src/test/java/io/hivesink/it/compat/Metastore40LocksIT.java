package io.hivesink.it.compat;

import java.nio.file.Path;
import java.util.Map;

import io.hivesink.commit.Fencing;
import io.hivesink.stack.hive.MetastoreProcess;
import io.hivesink.stack.hive.MetastoreRelease;

/**
 * {@link MetastoreCompatibility} on a Hive metastore 4.0.1 whose schema, lock tables included, was made by its own
 * Derby script. There compare-and-set cannot work: the script makes TABLE_PARAMS.PARAM_VALUE a CLOB, and Derby
 * cannot compare CLOBs, so even a matching expected value fails. The start-up probe finds that out and auto falls
 * back to locks, under which the whole protocol runs. Read by HiveServer2 4.0.1.
 */
class Metastore40LocksIT extends MetastoreCompatibility {

    Metastore40LocksIT() {
        super(MetastoreRelease.HIVE_4_0, Map.of(MetastoreProcess.FULL_SCHEMA, "true"), Fencing.LOCKS, "4.0.1");
    }

    @Override
    String readElsewhere() {
        return "Metastore40IT reads a 4.0.1 metastore's tables with HiveServer2 4.0.1, and fencing by locks changes "
                + "no file or partition a reader sees";
    }

    @Override
    QueryEngine queryEngine(String metastoreUri, Path workDir) {
        return new HiveServer2Engine(metastoreUri, workDir, hdfsUri());
    }
}
