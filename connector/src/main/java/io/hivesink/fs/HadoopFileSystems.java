package io.hivesink.fs;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.util.Arrays;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.kafka.connect.errors.ConnectException;

/** Hadoop configuration and FileSystem instances for the task. */
public final class HadoopFileSystems {

    private HadoopFileSystems() {
    }

    /**
     * Hadoop defaults plus core-site.xml and hdfs-site.xml from {@code confDir}, if given, and {@code umask} (octal),
     * if given, for every file and directory the task creates.
     */
    public static Configuration configuration(String confDir, String umask) {
        Configuration conf = new Configuration();
        if (!confDir.isEmpty()) {
            File dir = new File(confDir);
            if (!dir.isDirectory()) {
                throw new ConnectException("hadoop.conf.dir " + confDir + " is not a directory on this worker.");
            }
            for (String site : new String[] {"core-site.xml", "hdfs-site.xml"}) {
                File file = new File(dir, site);
                if (file.isFile()) {
                    conf.addResource(new org.apache.hadoop.fs.Path(file.toURI()));
                }
            }
        }
        if (!umask.isEmpty()) {
            conf.set(FsPermission.UMASK_LABEL, umask);
        }
        // Closing an HDFS file waits until the namenode has heard from the datanodes about its last block, polling
        // from 400 ms on: with one file per table partition that adds up to seconds per batch. Poll from 20 ms,
        // as often in total as the default allows (about 12 s), unless the site files say otherwise.
        setUnlessConfigured(conf, "dfs.client.block.write.locateFollowingBlock.initial.delay.ms", "20");
        setUnlessConfigured(conf, "dfs.client.block.write.locateFollowingBlock.retries", "10");
        return conf;
    }

    private static void setUnlessConfigured(Configuration conf, String key, String value) {
        String[] sources = conf.getPropertySources(key);
        if (sources == null || Arrays.stream(sources).allMatch(source -> source.endsWith("-default.xml"))) {
            conf.set(key, value);
        }
    }

    /**
     * A FileSystem of its own (not Hadoop's shared cache), so closing it on task stop cannot break another task.
     */
    public static FileSystem open(String fsUrl, Configuration conf) {
        try {
            return fsUrl.isEmpty() ? FileSystem.newInstance(conf) : FileSystem.newInstance(URI.create(fsUrl), conf);
        } catch (IOException e) {
            throw new ConnectException("Cannot open the FileSystem " + (fsUrl.isEmpty() ? "(fs.defaultFS)" : fsUrl)
                    + ": " + e.getMessage() + ". Check fs.url and hadoop.conf.dir.", e);
        }
    }
}
