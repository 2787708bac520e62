package io.hivesink.avro.container;

import java.io.IOException;
import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Supplier;

/**
 * A writer's compressors (deflaters, zstd contexts, xz array caches, and the like), kept in a free list and reused by
 * whichever thread compresses the next block: at most one per thread that compresses at the same time. Once closed,
 * a compressor given back is closed at once, since the zstd contexts and deflaters hold native memory.
 */
final class CodecContexts implements AutoCloseable {

    private final String codecName;
    /** Null for codec {@code null}. */
    private final Supplier<BlockCodecs.Compressor> factory;
    private final Deque<BlockCodecs.Compressor> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;

    /** @throws IllegalArgumentException for an unknown codec or a level it does not take */
    CodecContexts(String codecName, int codecLevel) {
        this.codecName = codecName;
        this.factory = BlockCodecs.factory(codecName, codecLevel);
    }

    String codecName() {
        return codecName;
    }

    /** Whether the codec is {@code null}: blocks are written as they are. */
    boolean uncompressed() {
        return factory == null;
    }

    /**
     * Appends {@code source[offset, offset + size)} compressed by the codec (as it is, for codec null) to {@code out}.
     */
    void compress(byte[] source, int offset, int size, BlockBuffer out) throws IOException {
        if (factory == null) {
            out.write(source, offset, size);
            return;
        }
        BlockCodecs.Compressor borrowed = idle.pollFirst();
        BlockCodecs.Compressor compressor = borrowed != null ? borrowed : factory.get();
        boolean reusable = false;
        try {
            compressor.compress(source, offset, size, out);
            reusable = true;
        } finally {
            if (reusable) {
                giveBack(compressor);
            } else {
                compressor.close();
            }
        }
    }

    /** Keeps a compressor for the next block, unless closed meanwhile. */
    private void giveBack(BlockCodecs.Compressor compressor) {
        idle.offerFirst(compressor);
        if (closed) {
            closeIdle();
        }
    }

    private void closeIdle() {
        for (BlockCodecs.Compressor compressor; (compressor = idle.pollFirst()) != null;) {
            compressor.close();
        }
    }

    /** Releases the idle compressors, and each one still in use once it is given back. */
    @Override
    public void close() {
        closed = true;
        closeIdle();
    }
}
