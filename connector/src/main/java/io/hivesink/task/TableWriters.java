package io.hivesink.task;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;

import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.config.TableConfig;
import io.hivesink.config.TableOverrides;

/**
 * The file writer of each table: one {@link ParallelContainerWriter} per codec and level in use, all on the task's
 * pool, so that a table may set its own codec ({@code table.<name>.avro.codec}).
 */
public final class TableWriters implements AutoCloseable {

    /**
     * What every file tells Hive's AvroSerDe (3.1.3 and later) about its dates and timestamps: they are proleptic
     * Gregorian, as Avro specifies (without this Hive takes them for the hybrid Julian calendar and moves dates
     * before 1582 by days), and timestamps are shown as UTC (without it, in the reading server's time zone).
     */
    static final Map<String, String> HIVE_READER_METADATA = Map.of("writer.proleptic", "true",
            "writer.time.zone", "UTC");

    private final TableOverrides settings;
    private final ExecutorService pool;
    private final int threads;
    private final int syncIntervalBytes;
    private final Map<String, ParallelContainerWriter> byCodec = new ConcurrentHashMap<>();

    TableWriters(TableOverrides settings, ExecutorService pool, int threads, int syncIntervalBytes) {
        this.settings = settings;
        this.pool = pool;
        this.threads = threads;
        this.syncIntervalBytes = syncIntervalBytes;
    }

    public ParallelContainerWriter forTable(String table) {
        TableConfig config = settings.configFor(table);
        String codec = config.codecName();
        int level = config.codecLevel();
        return byCodec.computeIfAbsent(codec + ":" + level,
                key -> new ParallelContainerWriter(pool, threads, codec, level, syncIntervalBytes,
                        HIVE_READER_METADATA));
    }

    @Override
    public void close() {
        byCodec.values().forEach(ParallelContainerWriter::close);
    }
}
