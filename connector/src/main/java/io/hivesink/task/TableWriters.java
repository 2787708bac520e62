package io.hivesink.task;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;

import io.hivesink.avro.ContainerFileWriter;
import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.config.PerTableConfig;
import io.hivesink.config.TableSettings;

/**
 * The file writer of each table: one {@link ParallelContainerWriter} per codec and level in use, all on the task's
 * pool, so that a table may set its own codec ({@code table.<name>.avro.codec}).
 */
final class TableWriters implements AutoCloseable {

    private final TableSettings settings;
    private final ExecutorService pool;
    private final int threads;
    private final int syncIntervalBytes;
    private final Map<String, ParallelContainerWriter> byCodec = new ConcurrentHashMap<>();

    TableWriters(TableSettings settings, ExecutorService pool, int threads, int syncIntervalBytes) {
        this.settings = settings;
        this.pool = pool;
        this.threads = threads;
        this.syncIntervalBytes = syncIntervalBytes;
    }

    ContainerFileWriter forTable(String table) {
        PerTableConfig config = settings.configFor(table);
        String codec = config.codecName();
        int level = config.codecLevel();
        return byCodec.computeIfAbsent(codec + ":" + level,
                key -> new ParallelContainerWriter(pool, threads, codec, level, syncIntervalBytes));
    }

    @Override
    public void close() {
        byCodec.values().forEach(ParallelContainerWriter::close);
    }
}
