package io.hivesink.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The Compaction keys ({@code docs/compaction.md}): which tables have their done partitions' small files merged. A
 * table may set them for itself ({@code table.<name>.<key>}). Compaction is being built (issue 46): for now the key
 * gives a table the layout compaction needs, partitions outside the table's directory from their first batch, so that
 * a table turned on today is compacted from its first partition once the rest lands.
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public final class CompactionConfig {

    public static final String GROUP = "Compaction";
    public static final String COMPACTION_ENABLED = "compaction.enabled";
    /** The directory, beside a compacted table's own, that holds its partitions: this prefix, then the table. */
    public static final String PARTITIONS_DIR_PREFIX = "partitions_of_";

    private CompactionConfig() {
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(COMPACTION_ENABLED, Type.BOOLEAN, false, Validators.bool(), Importance.MEDIUM,
                "Whether a table's done partitions are compacted, their small files merged into a few large ones "
                        + "(docs/compaction.md). Set it per table: table.<name>.compaction.enabled=true. A table "
                        + "with it on keeps each partition it lands in from then on outside its own directory, "
                        + "under " + PARTITIONS_DIR_PREFIX + "<table>/<partition path>/0 beside it, so that a "
                        + "compaction can move the partition to a new directory in one metastore call and Hive's "
                        + "MSCK REPAIR TABLE keeps it; partitions it already had stay where they are. Do not run "
                        + "Trino's sync_partition_metadata with DROP or FULL and case_sensitive=true on such a "
                        + "table: it drops the partitions that live outside. Being built (issue 46): this version "
                        + "gives the table that layout and does not compact yet.",
                GROUP, ++order, Width.SHORT, "Compaction");
    }

    static boolean enabled(AbstractConfig config) {
        return config.getBoolean(COMPACTION_ENABLED);
    }
}
