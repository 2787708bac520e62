package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ManifestTest {

    /**
     * An HDFS output stream whose pipeline failed throws one exception instance again on every later call (seen when
     * DataNodes were lost): the manifest's write must end with that IOException, which Connect retries, not with
     * an IllegalArgumentException from adding the exception to itself as suppressed.
     */
    @Test
    void aStreamThatFailsOnEveryCallEndsTheWriteWithItsIOException() throws IOException {
        IOException pipelineFailed = new IOException("Failed to replace a bad datanode on the existing pipeline");
        OutputStream failing = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw pipelineFailed;
            }

            @Override
            public void flush() throws IOException {
                throw pipelineFailed;
            }

            @Override
            public void close() throws IOException {
                throw pipelineFailed;
            }
        };
        FileSystem fs = new FilterFileSystem(FileSystem.getLocal(new Configuration())) {
            @Override
            public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
                    short replication, long blockSize, Progressable progress) {
                return new FSDataOutputStream(failing, null);
            }
        };
        Manifest manifest = new Manifest("b-1", List.of(), new Manifest.StagedFile("hive_sink_ledger",
                List.of("b-1"), new Path("/staged/ledger.avro"), new Path("/ledger/batch_id=b-1/ledger.avro")),
                Map.of(new TopicPartition("events", 0), 10L));

        IOException thrown = assertThrows(IOException.class, () -> manifest.write(fs, new Path("/x/_manifest.avro")));
        assertSame(pipelineFailed, thrown);
    }
}
