package io.hivesink.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class S3ConfigTest {

    @Test
    void onlyTheKeysGivenReachS3AsSettingsSoThatCoreSiteHoldsForTheRest() {
        Map<String, String> props = HiveSinkConfigTest.minimal();
        props.put("s3.endpoint", "http://minio:9000");
        props.put("s3.path.style.access", "true");
        props.put("s3.access.key", "AKIA");
        props.put("s3.secret.key", "very-secret");
        Configuration conf = new Configuration(false);
        conf.set("fs.s3a.endpoint.region", "eu-west-1", "core-site.xml");
        HiveSinkConfig.parse(props).s3().applyTo(conf);
        assertEquals("http://minio:9000", conf.get("fs.s3a.endpoint"));
        assertEquals("true", conf.get("fs.s3a.path.style.access"));
        assertEquals("AKIA", conf.get("fs.s3a.access.key"));
        assertEquals("very-secret", conf.get("fs.s3a.secret.key"));
        assertEquals("eu-west-1", conf.get("fs.s3a.endpoint.region"), "not given: core-site.xml's stands");
        assertNull(conf.get("fs.s3a.aws.credentials.provider"));
    }

    @Test
    void theSecretKeyIsNeverShownAndNeedsItsAccessKey() {
        Map<String, String> props = HiveSinkConfigTest.minimal();
        props.put("s3.secret.key", "very-secret");
        ConfigException e = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(e.getMessage().contains("s3.access.key"), e.getMessage());
        assertFalse(e.getMessage().contains("very-secret"), e.getMessage());
        props.put("s3.access.key", "AKIA");
        HiveSinkConfig config = HiveSinkConfig.parse(props);
        assertFalse(config.s3().toString().contains("very-secret"), config.s3().toString());
        assertFalse(config.values().toString().contains("very-secret"));
    }

    @Test
    void pathStyleAccessIsTrueFalseOrNotGiven() {
        Map<String, String> props = HiveSinkConfigTest.minimal();
        props.put("s3.path.style.access", "yes");
        ConfigException e = assertThrows(ConfigException.class, () -> HiveSinkConfig.parse(props));
        assertTrue(e.getMessage().contains("s3.path.style.access"), e.getMessage());
    }
}
