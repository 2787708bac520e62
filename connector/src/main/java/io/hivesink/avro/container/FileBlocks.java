package io.hivesink.avro.container;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.avro.Schema;

import io.hivesink.format.DatumSource;

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
 * <p>Raw and compressed bytes are held in pages of at most {@value #PAGE} bytes, not in one array per block: a block
 * is about a MiB, and G1 puts an array of half a region or more in regions of its own (humongous), wasting the rest
 * of them, which doubled the heap a batch of full blocks took. A file's first pages are small, so that a file that
 * gets a handful of records (a batch spread over thousands of partitions) holds little.
 *
 * <p>Threads: one thread appends (the task's), then hands the file to one that writes it (a happens-before edge,
 * such as a task submitted to an executor, between them); compression runs on the pool, or on the writing thread if
 * no pool thread has started a block yet. The datums are compressed, so {@link #page}, {@link #start} and
 * {@link #length} are not available: only the count and sizes are.
 */
public final class FileBlocks implements DatumSource {

    static final int PAGE = 64 * 1024;
    /**
     * The first page of a file; each next one is twice as large, up to {@link #PAGE}, so a small file's pages hold at
     * most twice its bytes.
     */
    private static final int FIRST_PAGE = 1024;
    /** A block's raw bytes gathered in one array on the thread that compresses it, as the codecs take them. */
    private static final ThreadLocal<byte[][]> GATHERED = ThreadLocal.withInitial(() -> new byte[1][0]);
    private static final ThreadLocal<BlockBuffer> SCRATCH = ThreadLocal.withInitial(() -> new BlockBuffer(1 << 16));

    private final ParallelContainerWriter writer;
    private final byte[] sync;
    private final List<Block> blocks = new ArrayList<>();
    /**
     * The pages of the open block and of cut blocks not compressed yet, plus the compressed blocks' pages: what the
     * file holds in the heap.
     */
    private final AtomicLong held = new AtomicLong();
    private List<byte[]> openPages = new ArrayList<>();
    /** Bytes used in the open block's last page. */
    private int lastPageUsed;
    private int openBytes;
    private int openCount;
    private int pagesMade;
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
        int at = offset;
        int left = length;
        while (left > 0) {
            byte[] page = openPages.isEmpty() ? null : openPages.get(openPages.size() - 1);
            if (page == null || lastPageUsed == page.length) {
                page = newPage();
            }
            int n = Math.min(left, page.length - lastPageUsed);
            System.arraycopy(source, at, page, lastPageUsed, n);
            lastPageUsed += n;
            at += n;
            left -= n;
        }
        openBytes += length;
        openCount++;
        count++;
        bytes += length;
        if (openBytes >= writer.syncInterval()) {
            cut();
        }
    }

    private byte[] newPage() {
        int size = (int) Math.min(PAGE, (long) FIRST_PAGE << Math.min(pagesMade, 6));
        pagesMade++;
        byte[] page = new byte[size];
        openPages.add(page);
        lastPageUsed = 0;
        held.addAndGet(size);
        return page;
    }

    /** Hands the open block to the pool to be compressed; the next datum opens a new one. */
    private void cut() {
        Block block = new Block(openPages, openBytes, openCount);
        blocks.add(block);
        openPages = new ArrayList<>();
        lastPageUsed = 0;
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

    /** What the file holds in the heap now: the pages of raw bytes not compressed yet, and the compressed blocks. */
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
    @Override
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
            for (byte[] page : block.await()) {
                out.write(page);
                written += page.length;
            }
        }
        out.flush();
        return written;
    }

    private static long sizeOf(List<byte[]> pages) {
        long size = 0;
        for (byte[] page : pages) {
            size += page.length;
        }
        return size;
    }

    /**
     * A cut block: its raw pages until it is compressed, then its framed bytes in pages. A compression that failed
     * is tried again at the next write, from the raw pages it keeps until one succeeds.
     */
    private final class Block {
        /** Runs on the pool, or on the writing thread; replaced after a failure, for the next write to run. */
        FutureTask<Void> task = newTask();
        private List<byte[]> raw;
        private volatile List<byte[]> framed;
        private final int size;
        private final int records;

        Block(List<byte[]> raw, int size, int records) {
            this.raw = raw;
            this.size = size;
            this.records = records;
        }

        private FutureTask<Void> newTask() {
            return new FutureTask<>(() -> {
                compress();
                return null;
            });
        }

        private void compress() throws IOException {
            if (framed != null) {
                return;
            }
            List<byte[]> pages = raw;
            long rawHeld = sizeOf(pages);
            if (discarded) {
                raw = null;
                framed = List.of();
                held.addAndGet(-rawHeld);
                return;
            }
            byte[] source = gather(pages);
            BlockBuffer out = SCRATCH.get();
            out.reset();
            writer.compress(source, 0, size, out);
            int start = out.frame(records, sync);
            List<byte[]> result = new ArrayList<>((out.position() - start) / PAGE + 1);
            for (int at = start; at < out.position(); at += PAGE) {
                result.add(Arrays.copyOfRange(out.array(), at, Math.min(at + PAGE, out.position())));
            }
            long limit = writer.keptBufferLimit();
            if (out.capacity() > limit) {
                SCRATCH.remove(); // do not keep buffers grown by a rare huge block
            }
            if (source.length > limit) {
                GATHERED.get()[0] = new byte[0];
            }
            held.addAndGet(out.position() - start - rawHeld);
            raw = null;
            framed = result;
        }

        /** The block's bytes back to back in this thread's array. */
        private byte[] gather(List<byte[]> pages) {
            byte[][] holder = GATHERED.get();
            if (holder[0].length < size) {
                holder[0] = new byte[size];
            }
            byte[] gathered = holder[0];
            int at = 0;
            for (byte[] page : pages) {
                int n = Math.min(page.length, size - at);
                System.arraycopy(page, 0, gathered, at, n);
                at += n;
            }
            return gathered;
        }

        /** The framed block, compressed on this thread if no pool thread has started it. */
        List<byte[]> await() throws IOException {
            FutureTask<Void> running = task;
            try {
                writer.awaitCompressed(running);
            } catch (InterruptedIOException e) {
                throw e;
            } catch (IOException e) {
                task = newTask(); // the next write tries again
                throw e;
            }
            return framed;
        }
    }
}
