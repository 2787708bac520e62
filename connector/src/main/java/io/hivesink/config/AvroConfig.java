package io.hivesink.config;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The Avro files keys: codec, block size and the writer's threads.
 *
 * @param codecName     the codec, lower case
 * @param codecLevel    the codec's level, or -1 for its default
 * @param writerThreads the configured thread count, or the number of cores when it is 0
 */
// ConfigDef's Type, Importance and Width read as the DSL they are in every define below
@SuppressWarnings("BadImport")
public record AvroConfig(String codecName, int codecLevel, int syncIntervalBytes, int writerThreads,
        boolean compressEarly) {

    public static final String GROUP = "Avro files";
    public static final String AVRO_CODEC = "avro.codec";
    public static final String AVRO_CODEC_LEVEL = "avro.codec.level";
    public static final String AVRO_SYNC_INTERVAL_BYTES = "avro.sync.interval.bytes";
    public static final String WRITER_THREADS = "writer.threads";
    public static final String AVRO_COMPRESS_EARLY = "avro.compress.early";

    static void define(ConfigDef def) {
        int order = 0;
        def.define(AVRO_CODEC, Type.STRING, "snappy", Validators.codec(), Importance.MEDIUM,
                "Compression codec of the Avro container files: " + String.join(", ", AvroCodecs.NAMES) + ".",
                GROUP, ++order, Width.SHORT, "Codec");
        def.define(AVRO_CODEC_LEVEL, Type.INT, -1, ConfigDef.Range.between(-1, 22), Importance.LOW,
                "Compression level for deflate (1-9), zstandard (1-22) and xz (0-9); -1 takes the codec's "
                        + "default (deflate 6, zstandard 3, xz 6). Ignored by other codecs.",
                GROUP, ++order, Width.SHORT, "Codec level");
        def.define(AVRO_SYNC_INTERVAL_BYTES, Type.INT, 1024 * 1024, ConfigDef.Range.between(32, 1 << 30),
                Importance.LOW,
                "Approximate size of an Avro block before compression: a sync marker is written after each.",
                GROUP, ++order, Width.SHORT, "Block size");
        def.define(WRITER_THREADS, Type.INT, 0, ConfigDef.Range.between(0, 256), Importance.MEDIUM,
                "Threads per task that encode records (while they arrive) and compress blocks (when a batch is "
                        + "written); one pool per task. 0: as many as the worker has cores.",
                GROUP, ++order, Width.SHORT, "Writer threads");
        def.define(AVRO_COMPRESS_EARLY, Type.BOOLEAN, true, Validators.bool(), Importance.LOW,
                "Whether a file's Avro blocks are compressed as soon as they fill, while the batch still takes "
                        + "records, instead of all when the batch is written. The raw bytes of a compressed block "
                        + "are let go, so a batch holds about its compressed size (what the memory budget counts), "
                        + "and less is left to compress between a batch's close and its commit. The files are the "
                        + "same byte for byte. false: a batch holds its records' encoded bytes until it is written.",
                GROUP, ++order, Width.SHORT, "Compress early");
    }

    static AvroConfig from(AbstractConfig config) {
        int threads = config.getInt(WRITER_THREADS);
        int cores = Runtime.getRuntime().availableProcessors();
        return new AvroConfig(codecName(config), config.getInt(AVRO_CODEC_LEVEL),
                config.getInt(AVRO_SYNC_INTERVAL_BYTES), threads == 0 ? cores : threads,
                config.getBoolean(AVRO_COMPRESS_EARLY));
    }

    static String codecName(AbstractConfig config) {
        return config.getString(AVRO_CODEC).trim().toLowerCase(Locale.ROOT);
    }

    /** What is wrong with the level for the codec, or null if nothing is (-1, the default, always fits). */
    static String levelProblem(String codec, int level) {
        return level == -1 ? null : AvroCodecs.levelProblem(codec, level);
    }

    /** Problems that involve more than one of these keys: key to message. */
    Map<String, String> problems() {
        Map<String, String> problems = new LinkedHashMap<>();
        String levelProblem = levelProblem(codecName, codecLevel);
        if (levelProblem != null) {
            problems.put(AVRO_CODEC_LEVEL, levelProblem);
        }
        return problems;
    }
}
