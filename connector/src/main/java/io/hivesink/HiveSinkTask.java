package io.hivesink;

import java.util.Collection;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

import io.hivesink.security.TaskIdentity;
import io.hivesink.task.BatchCycle;
import io.hivesink.task.MetastoreFactory;
import io.hivesink.task.TaskAssembly;

/**
 * The task's lifecycle, as Connect drives it: {@code start} assembles the task ({@link TaskAssembly}), {@code open}
 * claims partitions and resumes them from the offsets committed in the metastore, {@code put} and
 * {@code preCommit} hand records and offset commits to the {@link BatchCycle}, {@code close} commits what the
 * partitions hold, {@code stop} closes everything. Each call runs as the task's identity ({@link TaskIdentity}: the
 * worker's user, or the task's Kerberos principal, its ticket renewed first if due), so that every part below
 * reaches HDFS and the metastore as the task.
 */
public class HiveSinkTask extends SinkTask {

    private TaskAssembly assembly;
    private BatchCycle cycle;
    private TaskIdentity identity;

    @Override
    public String version() {
        return HiveSinkConnector.pluginVersion();
    }

    @Override
    public void start(Map<String, String> props) {
        assembly = TaskAssembly.build(props, MetastoreFactory.THRIFT, System::currentTimeMillis, context);
        cycle = assembly.cycle();
        identity = assembly.identity();
    }

    /** Resumes newly assigned partitions where the metastore says they were committed, not where Kafka says. */
    @Override
    public void open(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        asTask(() -> cycle.claim(partitions));
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        asTask(() -> cycle.take(records));
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        identity.renewIfDue();
        return identity.call(() -> cycle.offsetsToCommit(currentOffsets));
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        if (cycle == null) {
            return;
        }
        asTask(() -> cycle.close(partitions));
    }

    private void asTask(Runnable call) {
        identity.renewIfDue();
        identity.run(call);
    }

    @Override
    public void stop() {
        if (assembly != null) {
            assembly.close();
        }
    }
}
