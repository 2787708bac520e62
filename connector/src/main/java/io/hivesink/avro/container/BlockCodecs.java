package io.hivesink.avro.container;

import java.io.IOException;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

import org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream;
import org.tukaani.xz.BasicArrayCache;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.UnsupportedOptionsException;
import org.tukaani.xz.XZ;
import org.tukaani.xz.XZOutputStream;
import org.xerial.snappy.Snappy;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;

import io.hivesink.config.AvroCodecs;

/**
 * Block compressors for the codecs of {@link AvroCodecs}. Each writes exactly the block format that Apache Avro's codec
 * of the same name reads (and fastavro's), but keeps its native context and buffers from one block to the next instead
 * of building them per block as Avro's codec objects do.
 */
final class BlockCodecs {

    /** Default levels, as Avro's {@code CodecFactory} uses them. */
    static final int DEFLATE_DEFAULT_LEVEL = 6;
    static final int ZSTANDARD_DEFAULT_LEVEL = 3;
    static final int XZ_DEFAULT_LEVEL = 6;

    private BlockCodecs() {
    }

    /**
     * Compresses one block at a time. An instance holds native memory and buffers: it is used by one thread at a time
     * and must be closed.
     */
    interface Compressor extends AutoCloseable {

        /** Appends the compressed form of {@code src[off, off + len)} to {@code out}. */
        void compress(byte[] src, int off, int len, BlockBuffer out) throws IOException;

        @Override
        void close();
    }

    /**
     * Makes compressors for a codec name of {@link AvroCodecs}, or returns null for {@code null} (blocks are written as
     * they are). Loads the native library now, so a missing one fails at start-up, not at the first flush.
     *
     * @param level the codec's level, or -1 for its default
     * @throws IllegalArgumentException for an unknown name or a level the codec does not take
     */
    static Supplier<Compressor> factory(String name, int level) {
        if (level != -1 && (name.equals(AvroCodecs.DEFLATE) || name.equals(AvroCodecs.ZSTANDARD)
                || name.equals(AvroCodecs.XZ))) {
            String problem = AvroCodecs.levelProblem(name, level);
            if (problem != null) {
                throw new IllegalArgumentException(problem);
            }
        }
        switch (name) {
            case AvroCodecs.NULL:
                return null;
            case AvroCodecs.DEFLATE: {
                int deflateLevel = level == -1 ? DEFLATE_DEFAULT_LEVEL : level;
                return () -> new DeflateCompressor(deflateLevel);
            }
            case AvroCodecs.SNAPPY:
                Snappy.maxCompressedLength(1); // loads the native library
                return SnappyCompressor::new;
            case AvroCodecs.ZSTANDARD: {
                int zstdLevel = Math.max(Zstd.minCompressionLevel(), Math.min(Zstd.maxCompressionLevel(),
                        level == -1 ? ZSTANDARD_DEFAULT_LEVEL : level));
                return () -> new ZstandardCompressor(zstdLevel);
            }
            case AvroCodecs.XZ: {
                int xzLevel = level == -1 ? XZ_DEFAULT_LEVEL : level;
                return () -> new XzCompressor(xzLevel);
            }
            case AvroCodecs.BZIP2:
                return Bzip2Compressor::new;
            default:
                throw new IllegalArgumentException("Unknown Avro codec '" + name + "'; choose one of "
                        + String.join(", ", AvroCodecs.NAMES));
        }
    }

    /**
     * Raw deflate (RFC 1951, no zlib header or checksum), as Avro's {@code DeflateCodec}: one {@link Deflater} reset
     * per block, compressing straight into the block buffer.
     */
    static final class DeflateCompressor implements Compressor {
        private final Deflater deflater;

        DeflateCompressor(int level) {
            deflater = new Deflater(level, true);
        }

        @Override
        public void compress(byte[] src, int off, int len, BlockBuffer out) {
            deflater.reset();
            deflater.setInput(src, off, len);
            deflater.finish();
            // zlib's deflateBound for raw deflate is below this: one pass in the common case
            out.ensure(len + (len >> 12) + (len >> 14) + (len >> 25) + 64);
            while (!deflater.finished()) {
                if (out.remaining() < 64) {
                    out.ensure(Math.max(4096, len >> 4));
                }
                int n = deflater.deflate(out.array(), out.position(), out.remaining());
                out.advance(n);
            }
        }

        @Override
        public void close() {
            deflater.end();
        }
    }

    /**
     * Snappy as Avro's {@code SnappyCodec} frames it: the raw snappy block (no framing format), then the CRC32 of the
     * uncompressed bytes as 4 bytes, big-endian.
     */
    static final class SnappyCompressor implements Compressor {
        private final CRC32 crc = new CRC32();

        @Override
        public void compress(byte[] src, int off, int len, BlockBuffer out) throws IOException {
            out.ensure(Snappy.maxCompressedLength(len) + 4);
            int n = Snappy.compress(src, off, len, out.array(), out.position());
            out.advance(n);
            crc.reset();
            crc.update(src, off, len);
            int checksum = (int) crc.getValue();
            byte[] target = out.array();
            int at = out.position();
            target[at] = (byte) (checksum >>> 24);
            target[at + 1] = (byte) (checksum >>> 16);
            target[at + 2] = (byte) (checksum >>> 8);
            target[at + 3] = (byte) checksum;
            out.advance(4);
        }

        @Override
        public void close() {
        }
    }

    /**
     * One zstd frame per block, compressed in one call with a reused {@link ZstdCompressCtx}. Unlike Avro's
     * stream-built frames, ours record the content size in the frame header; no checksum, as Avro's default. Avro's
     * {@code ZstdInputStream} and Python's {@code zstd.decompress} read both kinds.
     */
    static final class ZstandardCompressor implements Compressor {
        private final ZstdCompressCtx ctx;

        ZstandardCompressor(int level) {
            ctx = new ZstdCompressCtx();
            ctx.setLevel(level);
            ctx.setChecksum(false);
            ctx.setContentSize(true);
        }

        @Override
        public void compress(byte[] src, int off, int len, BlockBuffer out) {
            long bound = Zstd.compressBound(len);
            if (bound > Integer.MAX_VALUE - 64) {
                throw new IllegalArgumentException("Block too large for zstd: " + len + " bytes");
            }
            out.ensure((int) bound);
            int n = ctx.compressByteArray(out.array(), out.position(), out.remaining(), src, off, len);
            out.advance(n);
        }

        @Override
        public void close() {
            ctx.close();
        }
    }

    /**
     * An xz stream per block (LZMA2 at the preset level, CRC64 check), the format Avro's {@code XZCodec} reads. Two
     * differences from Avro's bytes, none in what readers get: the dictionary is capped at the block's size rounded up
     * to a power of two (a dictionary larger than the data gains nothing, and costs every writer and reader its full
     * size: at level 6, 8 MiB of dictionary and about 94 MiB of encoder arrays per block for Avro), and the stream has
     * no flush point before its end (Avro's, through commons-compress 1.28, has one). The encoder's arrays come from an
     * {@link BasicArrayCache} owned by this compressor, so they are allocated once, not per block.
     */
    static final class XzCompressor implements Compressor {
        private final LZMA2Options options;
        private final int presetDictSize;
        private final BasicArrayCache arrays = new BasicArrayCache();

        XzCompressor(int level) {
            try {
                options = new LZMA2Options(level);
            } catch (UnsupportedOptionsException e) {
                throw new IllegalArgumentException("xz level " + level + ": " + e.getMessage(), e);
            }
            presetDictSize = options.getDictSize();
        }

        static int dictSize(int presetDictSize, int len) {
            if (len >= presetDictSize) {
                return presetDictSize;
            }
            return Math.max(LZMA2Options.DICT_SIZE_MIN, len <= 1 ? 0 : Integer.highestOneBit(len - 1) << 1);
        }

        @Override
        public void compress(byte[] src, int off, int len, BlockBuffer out) throws IOException {
            options.setDictSize(dictSize(presetDictSize, len));
            XZOutputStream xz = new XZOutputStream(out, options, XZ.CHECK_CRC64, arrays);
            xz.write(src, off, len);
            xz.finish(); // also gives the arrays back to the cache
        }

        @Override
        public void close() {
        }
    }

    /**
     * A bzip2 stream per block with commons-compress, exactly as Avro's {@code BZip2Codec}. commons-compress offers no
     * way to reuse its block-sorting arrays, so this runs at Avro's speed, only in parallel.
     */
    static final class Bzip2Compressor implements Compressor {

        @Override
        public void compress(byte[] src, int off, int len, BlockBuffer out) throws IOException {
            BZip2CompressorOutputStream bzip2 = new BZip2CompressorOutputStream(out);
            bzip2.write(src, off, len);
            bzip2.finish();
        }

        @Override
        public void close() {
        }
    }
}
