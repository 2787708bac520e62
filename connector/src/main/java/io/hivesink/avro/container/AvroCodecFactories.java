package io.hivesink.avro.container;

import org.apache.avro.file.CodecFactory;

import io.hivesink.config.AvroCodecs;

/** Avro codec objects for the codec names of {@link AvroCodecs}. */
public final class AvroCodecFactories {

    private AvroCodecFactories() {
    }

    /** Avro's codec of that name, at {@code level} (-1: the codec's default). */
    public static CodecFactory create(String name, int level) {
        return switch (name) {
            case AvroCodecs.NULL -> CodecFactory.nullCodec();
            case AvroCodecs.SNAPPY -> CodecFactory.snappyCodec();
            case AvroCodecs.BZIP2 -> CodecFactory.bzip2Codec();
            case AvroCodecs.DEFLATE -> CodecFactory.deflateCodec(level == -1 ? 6 : level);
            case AvroCodecs.ZSTANDARD -> CodecFactory.zstandardCodec(level == -1 ? 3 : level);
            case AvroCodecs.XZ -> CodecFactory.xzCodec(level == -1 ? 6 : level);
            default -> throw new IllegalArgumentException("Unknown Avro codec '" + name + "'; choose one of "
                    + String.join(", ", AvroCodecs.NAMES));
        };
    }
}
