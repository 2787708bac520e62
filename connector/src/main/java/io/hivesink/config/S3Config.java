package io.hivesink.config;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.types.Password;

/**
 * The S3 keys: how the tasks reach an S3 bucket when {@code fs.url} is {@code s3a://bucket}. Each key sets the
 * S3A setting it names, and only when given, so that what core-site.xml says (hadoop.conf.dir) holds otherwise; the
 * keys are here so that a connector's S3 settings, secrets included, can come through Connect's REST API and its
 * config providers instead of a file on every worker.
 *
 * @param endpoint            {@code fs.s3a.endpoint}; empty if not given
 * @param region              {@code fs.s3a.endpoint.region}; empty if not given
 * @param pathStyleAccess     {@code fs.s3a.path.style.access}: "true", "false", or empty if not given
 * @param accessKey           {@code fs.s3a.access.key}; empty if not given
 * @param secretKey           {@code fs.s3a.secret.key}; empty if not given
 * @param credentialsProvider {@code fs.s3a.aws.credentials.provider}; empty if not given
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record S3Config(String endpoint, String region, String pathStyleAccess, Password accessKey,
        Password secretKey, String credentialsProvider) {

    public static final String GROUP = "S3";
    public static final String ENDPOINT = "s3.endpoint";
    public static final String REGION = "s3.region";
    public static final String PATH_STYLE_ACCESS = "s3.path.style.access";
    public static final String ACCESS_KEY = "s3.access.key";
    public static final String SECRET_KEY = "s3.secret.key";
    public static final String CREDENTIALS_PROVIDER = "s3.credentials.provider";

    static void define(ConfigDef def) {
        int order = 0;
        def.define(ENDPOINT, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "S3 endpoint (fs.s3a.endpoint): empty for AWS S3 in " + REGION + "; the URL of an S3-compatible "
                        + "store otherwise, for example http://minio.internal:9000 or https://s3.ceph.example.com.",
                GROUP, ++order, Width.LONG, "Endpoint");
        def.define(REGION, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "AWS region of the bucket (fs.s3a.endpoint.region), for example eu-west-1. Set it for AWS: without "
                        + "it S3A asks AWS where the bucket is. Most S3-compatible stores take any region.",
                GROUP, ++order, Width.SHORT, "Region");
        def.define(PATH_STYLE_ACCESS, Type.STRING, "", ConfigDef.ValidString.in("", "true", "false"),
                Importance.MEDIUM, "Whether requests name the bucket in the path (http://endpoint/bucket/key) "
                        + "instead of the host name (fs.s3a.path.style.access). Most S3-compatible stores (MinIO, "
                        + "Ceph, Ozone) need true; AWS takes either. Empty: S3A's default (false).",
                GROUP, ++order, Width.SHORT, "Path-style access");
        def.define(ACCESS_KEY, Type.PASSWORD, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "Access key id (fs.s3a.access.key), with " + SECRET_KEY + ". Empty: S3A's credential providers "
                        + "(" + CREDENTIALS_PROVIDER + ": by default environment variables, the instance's or "
                        + "container's role). Never logged; use a config provider (${file:...}) to keep it out "
                        + "of the connector's config.",
                GROUP, ++order, Width.MEDIUM, "Access key");
        def.define(SECRET_KEY, Type.PASSWORD, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "Secret access key (fs.s3a.secret.key), with " + ACCESS_KEY + ". Never logged.",
                GROUP, ++order, Width.MEDIUM, "Secret key");
        def.define(CREDENTIALS_PROVIDER, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.LOW,
                "S3A's credential providers (fs.s3a.aws.credentials.provider), comma-separated class names, for "
                        + "example org.apache.hadoop.fs.s3a.auth.AssumedRoleCredentialProvider. Empty: S3A's "
                        + "default chain.",
                GROUP, ++order, Width.LONG, "Credentials provider");
    }

    static S3Config from(AbstractConfig config) {
        return new S3Config(config.getString(ENDPOINT).trim(), config.getString(REGION).trim(),
                config.getString(PATH_STYLE_ACCESS), config.getPassword(ACCESS_KEY), config.getPassword(SECRET_KEY),
                config.getString(CREDENTIALS_PROVIDER).trim());
    }

    /** Sets the S3A settings these keys give, leaving the others as the Hadoop configuration has them. */
    public void applyTo(Configuration conf) {
        setIfGiven(conf, "fs.s3a.endpoint", endpoint);
        setIfGiven(conf, "fs.s3a.endpoint.region", region);
        setIfGiven(conf, "fs.s3a.path.style.access", pathStyleAccess);
        setIfGiven(conf, "fs.s3a.access.key", accessKey.value());
        setIfGiven(conf, "fs.s3a.secret.key", secretKey.value());
        setIfGiven(conf, "fs.s3a.aws.credentials.provider", credentialsProvider);
    }

    private static void setIfGiven(Configuration conf, String key, String value) {
        if (!value.isEmpty()) {
            conf.set(key, value, "connector config");
        }
    }

    /** Problems that involve more than one of these keys: key to message. */
    Map<String, String> problems() {
        Map<String, String> problems = new LinkedHashMap<>();
        if (accessKey.value().isEmpty() != secretKey.value().isEmpty()) {
            problems.put(accessKey.value().isEmpty() ? ACCESS_KEY : SECRET_KEY, "Set both " + ACCESS_KEY + " and "
                    + SECRET_KEY + ", or neither (S3A's credential providers then find the credentials).");
        }
        return problems;
    }
}
