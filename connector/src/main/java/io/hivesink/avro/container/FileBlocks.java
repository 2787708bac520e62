package io.hivesink.avro.container;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.avro.Schema;

import io.hivesink.avro.DatumSource;

/**
 * One container file's blocks, cut and compressed while its datums still arrive, so that little is left to compress
 * when the file is written and the file's raw bytes are let go block by block. Made by
 * {@link ParallelContainerWriter#openFile()}, written by that writer only: {@code write(schema, blocks, out)}.
 *
 * <p>{@link #append} copies each datum into the open block and cuts the block by the writer's rule (see
 * {@link ParallelContainerWriter}): as soon as it holds the sync interval, or before a datum would take it past the
 * largest block. A cut block is compressed and framed on the writer's pool; its raw bytes are dropped then, so the
 * file holds its compressed blocks and one open block of raw bytes ({@link #heldBytes}). The last, partial block is
 * compressed when the file is first written. The bytes written are exactly what the writer's streaming
 * {@code write} makes of the same datums with this file's sync marker; writing again writes them again.
 *
 * <p>Threads: one thread appends (the task's), then hands the file to one that writes it (a happens-before edge,
 * such as a task submitted to an executor, between them); compression runs on the pool, or on the writing thread if
 * no pool thread has started a block yet. The datums are compressed, so {@link #page}, {@link #start} and
 * {@link #length} are not available: only the count and sizes are.
 */
public final class FileBlocks implements DatumSource {

    /** The first open block's capacity: a file that gets a handful of records does not hold a whole block's room. */
    private static final int FIRST_CAPACITY = 16 * 1024;
    private static final ThreadLocal<BlockBuffer> SCRATCH = ThreadLocal.withInitial(() -> new BlockBuffer(1 << 16));

    private final ParallelContainerWriter writer;
    private final byte[] sync;
    private final List<Block> blocks = new ArrayList<>();
    /** Raw bytes of the open block and of cut blocks not compressed yet, plus the compressed blocks' framed bytes. */
    private final AtomicLong held = new AtomicLong();
    private byte[] open;
    private int openBytes;
    private int openCount;
    private int count;
    private long bytes;
    /** No more datums: the open block was cut at the first write. */
    private boolean sealed;
    private volatile boolean discarded;

    FileBlocks(ParallelContainerWriter writer, byte[] sync) {
        this.writer = writer;
        this.sync = sync;
    }

    /** Adds one encoded datum, copying {@code length} bytes of {@code source} from {@code offset}. */
    public void append(byte[] source, int offset, int length) {
        if (sealed || discarded) {
            throw new IllegalStateException("This file was written or discarded: no datum can be added");
        }
        if (openCount > 0 && (long) openBytes + length > ParallelContainerWriter.MAX_BLOCK_BYTES) {
            cut();
        }
        if (open == null || open.length - openBytes < length) {
            grow(length);
        }
        System.arraycopy(source, offset, open, openBytes, length);
        openBytes += length;
        openCount++;
        count++;
        bytes += length;
        held.addAndGet(length);
        if (openBytes >= writer.syncInterval()) {
            cut();
        }
    }

    private void grow(int length) {
        long needed = (long) openBytes + length;
        long roomy = open == null ? (blocks.isEmpty() ? FIRST_CAPACITY : writer.syncInterval() + FIRST_CAPACITY)
                : Math.min(2L * open.length, writer.syncInterval() + (long) FIRST_CAPACITY);
        long capacity = Math.max(needed, roomy);
        if (capacity > Integer.MAX_VALUE - 16) {
            throw new OutOfMemoryError("Avro block larger than 2 GiB");
        }
        open = open == null ? new byte[(int) capacity] : Arrays.copyOf(open, (int) capacity);
    }

    /** Hands the open block to the pool to be compressed; the next datum opens a new one. */
    private void cut() {
        Block block = new Block(open, openBytes, openCount);
        blocks.add(block);
        open = null;
        openBytes = 0;
        openCount = 0;
        writer.compressSoon(block.task);
    }

    /** Datums appended. */
    @Override
    public int count() {
        return count;
    }

    /** Uncompressed bytes of the datums appended. */
    @Override
    public long bytes() {
        return bytes;
    }

    /** What the file holds in the heap now: raw bytes not compressed yet, and the compressed blocks. */
    @Override
    public long heldBytes() {
        return held.get();
    }

    @Override
    public byte[] page(int datum) {
        throw compressed();
    }

    @Override
    public int start(int datum) {
        throw compressed();
    }

    @Override
    public int length(int datum) {
        throw compressed();
    }

    private static UnsupportedOperationException compressed() {
        return new UnsupportedOperationException("The datums of this file are compressed as they arrive: only the "
                + "writer that opened it can write it");
    }

    boolean openedBy(ParallelContainerWriter candidate) {
        return writer == candidate;
    }

    /** Drops the file: blocks not compressed yet are not compressed. */
    public void discard() {
        discarded = true;
    }

    /** The writer's part of {@code write}: the header, then every block in order. */
    long writeTo(Schema schema, OutputStream out) throws IOException {
        if (discarded) {
            throw new IllegalStateException("This file was discarded");
        }
        if (!sealed) {
            sealed = true;
            if (openCount > 0) {
                cut();
            }
        }
        long written = writer.writeHeader(schema, sync, out);
        for (Block block : blocks) {
            byte[] framed = block.await(writer.codecName());
            out.write(framed);
            written += framed.length;
        }
        out.flush();
        return written;
    }

    /** A cut block: its raw bytes until it is compressed, then its framed bytes. */
    private final class Block {
        final FutureTask<byte[]> task = new FutureTask<>(this::compress);
        private byte[] raw;
        private final int size;
        private final int records;

        Block(byte[] raw, int size, int records) {
            this.raw = raw;
            this.size = size;
            this.records = records;
        }

        private byte[] compress() throws IOException {
            byte[] source = raw;
            raw = null;
            if (discarded) {
                held.addAndGet(-size);
                return null;
            }
            BlockBuffer out = SCRATCH.get();
            out.reset();
            writer.compress(source, size, out);
            int start = out.frame(records, sync);
            byte[] framed = Arrays.copyOfRange(out.array(), start, out.position());
            if (out.capacity() > 2L * writer.syncInterval() + (1 << 16)) {
                SCRATCH.remove(); // do not keep a buffer grown by a rare huge block
            }
            held.addAndGet(framed.length - (long) size);
            return framed;
        }

        /** The framed block, compressed on this thread if no pool thread has started it. */
        byte[] await(String codec) throws IOException {
            task.run(); // does nothing if a pool thread has started or finished it
            try {
                return task.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("Interrupted while writing an Avro file");
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Error error) {
                    throw error;
                }
                throw new IOException("Could not compress an Avro block with codec " + codec + ": " + cause, cause);
            }
        }
    }
}
