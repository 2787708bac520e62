package io.hivesink.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The Storage keys: the FileSystem the tables live on and the directories the connector writes. Paths come out
 * trimmed and without a trailing slash, and the staging directory is resolved to its default.
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record StorageConfig(String fsUrl, String hadoopConfDir, String warehouseDir, String stagingDir, String umask) {

    public static final String GROUP = "Storage";
    public static final String FS_URL = "fs.url";
    public static final String HADOOP_CONF_DIR = "hadoop.conf.dir";
    public static final String WAREHOUSE_DIR = "warehouse.dir";
    public static final String STAGING_DIR = "staging.dir";
    public static final String UMASK = "fs.umask";

    static void define(ConfigDef def) {
        int order = 0;
        def.define(FS_URL, Type.STRING, "", Validators.fileSystemUrl(), Importance.HIGH,
                "URL of the Hadoop FileSystem the tables live on, for example hdfs://namenode:8020, "
                        + "hdfs://nameservice (HA, with hadoop.conf.dir) or file:///data. Any Hadoop FileSystem "
                        + "scheme on the plugin's classpath works. Empty: fs.defaultFS from hadoop.conf.dir.",
                GROUP, ++order, Width.LONG, "FileSystem URL");
        def.define(HADOOP_CONF_DIR, Type.STRING, "", new ConfigDef.NonNullValidator(), Importance.MEDIUM,
                "Directory holding core-site.xml and hdfs-site.xml, read when the task starts. Empty: Hadoop "
                        + "defaults plus whatever site files are on the plugin's classpath.",
                GROUP, ++order, Width.LONG, "Hadoop conf dir");
        def.define(WAREHOUSE_DIR, Type.STRING, "/warehouse/hive-sink", Validators.absolutePath(false), Importance.HIGH,
                "Root directory of the tables this connector creates: table t of database d lives in "
                        + "<warehouse.dir>/<d>.db/<t>. Must not be under the metastore's managed warehouse "
                        + "(metastore.warehouse.dir), because the tables are external.",
                GROUP, ++order, Width.LONG, "Warehouse dir");
        def.define(STAGING_DIR, Type.STRING, "", Validators.absolutePath(true), Importance.LOW,
                "Directory where files are written before they are moved into their table; no Hive table reads "
                        + "it. Must be on the same FileSystem as warehouse.dir so that the move is a rename. "
                        + "Empty: <warehouse.dir>/.hive-sink-staging.",
                GROUP, ++order, Width.LONG, "Staging dir");
        def.define(UMASK, Type.STRING, "", Validators.umask(), Importance.MEDIUM,
                "Umask (three octal digits, as in 027) of the files and directories the connector creates: its "
                        + "data files, partition directories, staging area and state. 027 gives files rw-r----- and "
                        + "directories rwxr-x---, so that the principal's group may read and nobody else. The "
                        + "database and table directories that the metastore creates follow the metastore's umask. "
                        + "Empty: fs.permissions.umask-mode from hadoop.conf.dir (Hadoop's default is 022).",
                GROUP, ++order, Width.SHORT, "Umask");
    }

    static StorageConfig from(AbstractConfig config) {
        String warehouse = trimTrailingSlash(config.getString(WAREHOUSE_DIR).trim());
        String staging = config.getString(STAGING_DIR).trim();
        return new StorageConfig(config.getString(FS_URL).trim(), config.getString(HADOOP_CONF_DIR).trim(), warehouse,
                staging.isEmpty() ? warehouse + "/.hive-sink-staging" : trimTrailingSlash(staging),
                config.getString(UMASK).trim());
    }

    private static String trimTrailingSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
