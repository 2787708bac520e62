package io.hivesink.config;

import java.util.Locale;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The ORC files keys, for tables whose {@code format} is orc: codec and stripe size.
 *
 * @param codecName   the codec, lower case
 * @param stripeBytes encoded record bytes per stripe
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record OrcConfig(String codecName, long stripeBytes) {

    public static final String GROUP = "ORC files";
    public static final String ORC_CODEC = "orc.codec";
    public static final String ORC_STRIPE_BYTES = "orc.stripe.bytes";

    static void define(ConfigDef def) {
        int order = 0;
        def.define(ORC_CODEC, Type.STRING, OrcCodecs.SNAPPY,
                ConfigDef.CaseInsensitiveValidString.in(OrcCodecs.NAMES.toArray(new String[0])), Importance.MEDIUM,
                "Compression codec of the ORC files: snappy (read by every Hive, Spark and Trino, the fastest), "
                        + "zlib (Hive's own default: smaller, slower to write), zstd (smaller and fast, but Hive "
                        + "before 4.0 cannot read it: only for tables read by Hive 4, Spark or Trino), none.",
                GROUP, ++order, Width.SHORT, "Codec");
        def.define(ORC_STRIPE_BYTES, Type.LONG, 64L * 1024 * 1024, ConfigDef.Range.between(1024 * 1024, 1L << 30),
                Importance.LOW,
                "Size of a stripe, counted as the records' encoded Avro bytes (about their uncompressed size), up "
                        + "to 1 GiB (a stripe is encoded in memory). "
                        + "Stripes are what readers split work by; a table's records in a batch are also cut into "
                        + "one stripe per writer thread when each gets at least 10,000 rows, so that all cores "
                        + "encode the file.",
                GROUP, ++order, Width.SHORT, "Stripe size");
    }

    static OrcConfig from(AbstractConfig config) {
        return new OrcConfig(codecName(config), config.getLong(ORC_STRIPE_BYTES));
    }

    static String codecName(AbstractConfig config) {
        return config.getString(ORC_CODEC).trim().toLowerCase(Locale.ROOT);
    }
}
