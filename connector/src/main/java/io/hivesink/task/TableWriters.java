package io.hivesink.task;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;

import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.config.AvroConfig;
import io.hivesink.config.OrcConfig;
import io.hivesink.config.ParquetConfig;
import io.hivesink.config.TableConfig;
import io.hivesink.config.TableOverrides;
import io.hivesink.config.TablesConfig;
import io.hivesink.format.TableFileWriter;
import io.hivesink.orc.ParallelOrcWriter;
import io.hivesink.parquet.ParallelParquetWriter;

/**
 * The file writer of each table, by its format: one writer per format, codec and setting in use, all on the task's
 * pool, so that a table may set its own ({@code table.<name>.format}, {@code table.<name>.avro.codec}, ...).
 */
public final class TableWriters implements AutoCloseable {

    /**
     * What every Avro file tells Hive's AvroSerDe (3.1.3 and later) about its dates and timestamps: they are proleptic
     * Gregorian, as Avro specifies (without this Hive takes them for the hybrid Julian calendar and moves dates
     * before 1582 by days), and timestamps are shown as UTC (without it, in the reading server's time zone).
     */
    static final Map<String, String> HIVE_READER_METADATA = Map.of("writer.proleptic", "true",
            "writer.time.zone", "UTC");
    /**
     * The same for Hive's Parquet reader (3.1.3 and later), under its own keys; and for Spark's, which takes dates
     * and timestamps (INT96 too) as proleptic Gregorian in files of a Spark from 3.1 on, and otherwise, in Spark 3,
     * refuses to read dates before 1582-10-15 and timestamps before 1900 (its rebase mode EXCEPTION).
     */
    static final Map<String, String> HIVE_PARQUET_READER_METADATA = Map.of("writer.date.proleptic", "true",
            "writer.time.zone", "UTC", "org.apache.spark.version", "3.1.0");
    /**
     * Spark's key for ORC files: from 3.1 on, Spark takes their dates as proleptic Gregorian, as the file's calendar
     * says; the timestamps' zone is in each stripe (UTC).
     */
    static final Map<String, String> ORC_READER_METADATA = Map.of("org.apache.spark.version", "3.1.0");

    private final TableOverrides settings;
    private final ExecutorService pool;
    private final int threads;
    private final AvroConfig avro;
    private final ParquetConfig parquet;
    private final OrcConfig orc;
    private final Map<String, ParallelContainerWriter> avroWriters = new ConcurrentHashMap<>();
    private final Map<String, ParallelParquetWriter> parquetWriters = new ConcurrentHashMap<>();
    private final Map<String, ParallelOrcWriter> orcWriters = new ConcurrentHashMap<>();

    TableWriters(TableOverrides settings, ExecutorService pool, int threads, AvroConfig avro, ParquetConfig parquet,
            OrcConfig orc) {
        this.settings = settings;
        this.pool = pool;
        this.threads = threads;
        this.avro = avro;
        this.parquet = parquet;
        this.orc = orc;
    }

    public TableFileWriter forTable(String table) {
        TableConfig config = settings.configFor(table);
        if (TablesConfig.FORMAT_PARQUET.equals(config.format())) {
            return parquetWriters.computeIfAbsent(config.parquetCodec() + ":" + config.parquetDictionary(),
                    key -> new ParallelParquetWriter(pool, threads, config.parquetCodec(),
                            config.parquetDictionary(), parquet.rowGroupBytes(), parquet.pageBytes(),
                            HIVE_PARQUET_READER_METADATA));
        }
        if (TablesConfig.FORMAT_ORC.equals(config.format())) {
            return orcWriters.computeIfAbsent(config.orcCodec(),
                    codec -> new ParallelOrcWriter(pool, threads, codec, orc.stripeBytes(), ORC_READER_METADATA));
        }
        return avroWriter(config);
    }

    /** The writer that compresses the table's Avro blocks as they fill; null if the table is not Avro. */
    public ParallelContainerWriter earlyWriter(String table) {
        TableConfig config = settings.configFor(table);
        return TablesConfig.FORMAT_AVRO.equals(config.format()) ? avroWriter(config) : null;
    }

    private ParallelContainerWriter avroWriter(TableConfig config) {
        String codec = config.codecName();
        int level = config.codecLevel();
        return avroWriters.computeIfAbsent(codec + ":" + level,
                key -> new ParallelContainerWriter(pool, threads, codec, level, avro.syncIntervalBytes(),
                        HIVE_READER_METADATA));
    }

    @Override
    public void close() {
        avroWriters.values().forEach(ParallelContainerWriter::close);
    }
}
