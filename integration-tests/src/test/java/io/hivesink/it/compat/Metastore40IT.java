package io.hivesink.it.compat;

import java.util.Map;

import io.hivesink.commit.Fencing;
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
}
