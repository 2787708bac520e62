package io.hivesink.security;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.hadoop.conf.Configuration;

/**
 * SASL's quality of protection for the metastore, from {@code hadoop.rpc.protection} as Hadoop and Hive read it:
 * authentication (auth), integrity (auth-int), privacy (auth-conf); several, comma-separated, in order of preference.
 */
public final class SaslQop {

    private SaslQop() {
    }

    public static String of(Configuration conf) {
        List<String> qops = new ArrayList<>();
        for (String level : conf.getTrimmedStrings("hadoop.rpc.protection", "authentication")) {
            qops.add(switch (level.toLowerCase(Locale.ROOT)) {
                case "integrity" -> "auth-int";
                case "privacy" -> "auth-conf";
                case "authentication" -> "auth";
                default -> throw new IllegalArgumentException("hadoop.rpc.protection holds '" + level + "'; give "
                        + "authentication, integrity or privacy");
            });
        }
        return String.join(",", qops);
    }
}
