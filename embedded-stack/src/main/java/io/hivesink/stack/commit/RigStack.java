package io.hivesink.stack.commit;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;

import io.hivesink.fs.HadoopFileSystems;
import io.hivesink.metastore.MetastoreSettings;
import io.hivesink.metastore.ThriftMetastore;
import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.hive.MetastoreProcess;
import io.hivesink.stack.hive.MetastoreRelease;

/**
 * What protocol tests run a {@link CommitRig} on: a MiniDFSCluster, a metastore of one release in a child JVM, the
 * connector's own metastore client and FileSystem, and a pool. Closing it stops them all.
 */
public final class RigStack implements AutoCloseable {

    private final MiniDFSCluster dfs;
    private final MetastoreProcess metastoreProcess;
    private final ThriftMetastore metastore;
    private final FileSystem fs;
    private final ExecutorService pool;

    private RigStack(MiniDFSCluster dfs, MetastoreProcess metastoreProcess, ThriftMetastore metastore, FileSystem fs,
            ExecutorService pool) {
        this.dfs = dfs;
        this.metastoreProcess = metastoreProcess;
        this.metastore = metastore;
        this.fs = fs;
        this.pool = pool;
    }

    /** Starts everything under {@code workDir} (emptied first). */
    public static RigStack start(Path workDir, MetastoreRelease release, Map<String, String> metastoreSettings)
            throws Exception {
        Path work = workDir.toAbsolutePath();
        EmbeddedStack.deleteRecursively(work);
        MiniDFSCluster dfs = new MiniDFSCluster.Builder(new Configuration(), work.resolve("hdfs").toFile())
                .numDataNodes(1).build();
        MetastoreProcess metastoreProcess = null;
        try {
            metastoreProcess = MetastoreProcess.start(release, work.resolve("metastore"), dfs.getURI().toString(),
                    metastoreSettings, MetastoreProcess.DEFAULT_START_TIMEOUT);
            ThriftMetastore metastore = ThriftMetastore.connect(new MetastoreSettings(
                    List.of(metastoreProcess.uri()), false, "", ""));
            // as the connector configures its client
            FileSystem fs = HadoopFileSystems.open(dfs.getURI().toString(), HadoopFileSystems.configuration("", ""));
            return new RigStack(dfs, metastoreProcess, metastore, fs, Executors.newFixedThreadPool(2));
        } catch (Exception | Error e) {
            if (metastoreProcess != null) {
                metastoreProcess.close();
            }
            dfs.shutdown(true);
            throw e;
        }
    }

    /** A rig whose tables go in {@code database}, under {@code <hdfs>/warehouse}. */
    public CommitRig rig(String database) {
        return new CommitRig(fs, metastore, database, hdfsUri() + "/warehouse", pool);
    }

    public ThriftMetastore metastore() {
        return metastore;
    }

    public MetastoreProcess metastoreProcess() {
        return metastoreProcess;
    }

    public FileSystem fileSystem() {
        return fs;
    }

    public String hdfsUri() {
        return dfs.getURI().toString();
    }


    @Override
    public void close() {
        metastore.close();
        metastoreProcess.close();
        pool.shutdownNow();
        dfs.shutdown(true);
    }
}
