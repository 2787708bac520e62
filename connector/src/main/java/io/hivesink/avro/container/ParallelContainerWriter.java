package io.hivesink.avro.container;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.avro.Schema;

import io.hivesink.config.AvroCodecs;
import io.hivesink.format.DatumSource;
import io.hivesink.format.TableFileWriter;

/**
 * Writes Avro object container files from already encoded datums, compressing blocks in parallel and writing them in
 * input order.
 *
 * <h2>The file</h2>
 * The standard container format: the header ({@link ContainerHeader}); then blocks, each its record count and
 * compressed size as Avro longs, the compressed datums, and the sync marker. The records are exactly the input datums
 * in input order, and the bytes depend only on the datums, schema, codec, level, sync interval and sync marker: not on
 * the thread count or timing. Blocks are cut where Avro's {@code DataFileWriter} cuts them: a datum is appended to the
 * open block, and the block is closed as soon as its uncompressed size reaches {@code syncIntervalBytes}; a datum is
 * never split, so a datum larger than the interval makes a block of its own. With codec {@code null}, deflate, snappy
 * or bzip2 the file is byte for byte what {@code DataFileWriter.appendEncoded} writes for the same sync marker and sync
 * interval. Zstandard and xz blocks hold the same data in a slightly different but standard encoding (see {@link
 * BlockCodecs}): zstd frames that carry their content size, xz streams whose dictionary is no larger than the block.
 *
 * <h2>Parallelism, order and memory</h2>
 * The calling thread cuts blocks and hands each to the pool as a task that gathers the block's datums into one array
 * (unless they already lie back to back in one page of the {@link DatumSource}, as they do when a file's records were
 * encoded together) and compresses them into the block's own buffer, framed and ready to write. The calling thread
 * writes blocks strictly in input order: it writes the oldest block as soon as it is done, and when {@code 3 x threads}
 * blocks are in flight it waits for the oldest one before it cuts another. If no pool thread has started the oldest
 * block yet (the pool is busy with other work, or saturated), the calling thread compresses it itself instead of
 * waiting, so a write always makes progress, even when it is called from a thread of the same pool. Memory held: at
 * most {@code 3 x threads} block buffers of about the compressed plus uncompressed size of one block; they are kept for
 * the next file and dropped if a huge datum made them oversized. With codec {@code null} nothing is compressed: the
 * calling thread writes the datums straight from their pages.
 *
 * <h2>Compressing before the file is written</h2>
 * {@link #openFile()} gives a {@link FileBlocks}: a file whose datums are appended one by one (while a batch still
 * fills), whose blocks are cut by the same rule and compressed on the pool as soon as they are full, and which this
 * writer later writes from those blocks, with the same bytes as a streaming write with its sync marker.
 *
 * <h2>Codec contexts</h2>
 * Compressors are reused across blocks and threads ({@link CodecContexts}): at most {@code pool threads + 1}.
 * {@link #close()} releases them.
 *
 * <h2>Threads and ownership</h2>
 * One instance writes one file at a time: {@link #write} must not be called concurrently on the same instance (it
 * throws {@link IllegalStateException} if it is), but it may be called for many files one after another, from any
 * thread. Several instances may share one pool and write concurrently. The caller owns the pool and the output stream:
 * the writer never shuts the pool down and never closes the stream (it flushes it). Close the writer when no more files
 * will be written with it, then shut the pool down. {@code datums} must not change while a write runs.
 */
public final class ParallelContainerWriter implements TableFileWriter, AutoCloseable {

    /** Smallest and largest sync interval, as Avro's {@code DataFileWriter} accepts them. */
    public static final int MIN_SYNC_INTERVAL = 32;
    public static final int MAX_SYNC_INTERVAL = 1 << 30;
    public static final int SYNC_SIZE = ContainerHeader.SYNC_SIZE;
    /** Blocks compressed or being compressed but not yet written, per pool thread. */
    public static final int BLOCKS_IN_FLIGHT_PER_THREAD = 3;

    /** A block's uncompressed size stays below this, so every codec's worst case still fits an array. */
    static final long MAX_BLOCK_BYTES = 1_500_000_000L;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final ExecutorService pool;
    private final byte[] codecNameBytes;
    private final Map<String, byte[]> metadata;
    private final int syncInterval;
    private final BlockCuts cuts;
    private final int maxBlocksInFlight;
    private final CodecContexts codecs;
    /** Block buffers kept for the next blocks; touched only by the thread that is writing. */
    private final ArrayDeque<StreamedBlock> idleBlocks = new ArrayDeque<>();
    private final AtomicBoolean writing = new AtomicBoolean();
    private volatile boolean closed;

    /**
     * @param pool              compresses blocks; owned by the caller, may be shared with other writers and other work
     * @param threads           the pool's thread count: sets how many blocks may be in flight ({@code 3 x threads})
     * @param codecName         one of {@link AvroCodecs#NAMES}
     * @param codecLevel        the codec's level, or -1 for its default (deflate 6, zstandard 3, xz 6)
     * @param syncIntervalBytes uncompressed bytes per block, from {@value #MIN_SYNC_INTERVAL} to 2^30
     * @param metadata          further entries in every file's metadata (for a reader's sake: not {@code avro.*} keys)
     * @throws IllegalArgumentException for an unknown codec, a level it does not take, or a bad interval; a codec whose
     *                                  native library cannot load fails here too
     */
    public ParallelContainerWriter(ExecutorService pool, int threads, String codecName, int codecLevel,
            int syncIntervalBytes, Map<String, String> metadata) {
        this.pool = Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(codecName, "codecName");
        if (syncIntervalBytes < MIN_SYNC_INTERVAL || syncIntervalBytes > MAX_SYNC_INTERVAL) {
            throw new IllegalArgumentException("The sync interval must be from " + MIN_SYNC_INTERVAL + " to "
                    + MAX_SYNC_INTERVAL + " bytes, not " + syncIntervalBytes);
        }
        this.codecs = new CodecContexts(codecName, codecLevel);
        this.codecNameBytes = codecName.getBytes(StandardCharsets.UTF_8);
        Map<String, byte[]> entries = new LinkedHashMap<>(); // in the caller's order, as DataFileWriter.setMeta
        metadata.forEach((key, value) -> {
            if (key.startsWith("avro.")) {
                throw new IllegalArgumentException("The avro.* metadata is the writer's own: " + key);
            }
            entries.put(key, value.getBytes(StandardCharsets.UTF_8));
        });
        this.metadata = Collections.unmodifiableMap(entries);
        this.syncInterval = syncIntervalBytes;
        this.cuts = new BlockCuts(syncIntervalBytes);
        this.maxBlocksInFlight = BLOCKS_IN_FLIGHT_PER_THREAD * checkThreads(threads);
    }

    private static int checkThreads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, not " + threads);
        }
        return threads;
    }

    /** Avro object container files. */
    @Override
    public String extension() {
        return ".avro";
    }

    /**
     * The blocks in flight, each up to a sync interval compressed; of datums compressed early, only the copy of the
     * last block, as the others are written as they are.
     */
    @Override
    public long writingBytes(DatumSource datums) {
        return Math.min(datums.heldBytes(), (long) maxBlocksInFlight * syncInterval);
    }

    /** Writes every field of {@code schema}, the datums' own: Hive's reader resolves them to the table's columns. */
    @Override
    public long write(Schema schema, Schema columns, DatumSource datums, OutputStream out) throws IOException {
        return write(schema, datums, out);
    }

    /**
     * Writes the file with a random sync marker, as Avro does; {@link FileBlocks} this writer opened are written from
     * their compressed blocks, with their own marker.
     */
    public long write(Schema schema, DatumSource datums, OutputStream out) throws IOException {
        if (datums instanceof FileBlocks blocks) {
            return write(schema, blocks, out);
        }
        return write(schema, datums, out, randomSync());
    }

    private static byte[] randomSync() {
        byte[] sync = new byte[SYNC_SIZE];
        RANDOM.nextBytes(sync);
        return sync;
    }

    /**
     * Opens a file whose blocks are compressed on this writer's pool as its datums are appended, to be written by
     * this writer later; see {@link FileBlocks}.
     */
    public FileBlocks openFile() {
        return openFile(randomSync());
    }

    /** For tests: a file with the given sync marker. */
    FileBlocks openFile(byte[] sync) {
        if (closed) {
            throw new IllegalStateException("This writer is closed");
        }
        if (sync.length != SYNC_SIZE) {
            throw new IllegalArgumentException("The sync marker must be " + SYNC_SIZE + " bytes, not " + sync.length);
        }
        return new FileBlocks(this, sync.clone());
    }

    /**
     * Writes a file opened by this writer: its compressed blocks, and its last block compressed now. May be called
     * while this writer writes another file, and again for the same file (which writes the same bytes).
     *
     * @throws IllegalArgumentException if another writer opened the file (its blocks are in that writer's codec)
     */
    public long write(Schema schema, FileBlocks blocks, OutputStream out) throws IOException {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(out, "out");
        if (!blocks.openedBy(this)) {
            throw new IllegalArgumentException("These file blocks were compressed by another writer; write them with "
                    + "the writer that opened them");
        }
        if (closed) {
            throw new IllegalStateException("This writer is closed");
        }
        return blocks.writeTo(schema, out);
    }

    /**
     * Writes one container file holding {@code datums} in their order, with the given sync marker; flushes {@code out}
     * but does not close it.
     *
     * @param sync 16 bytes
     * @return the number of bytes written to {@code out}
     * @throws IOException if {@code out} fails or a block cannot be compressed; every block task of this file has
     *                     finished when it is thrown, so the writer can be used again
     */
    public long write(Schema schema, DatumSource datums, OutputStream out, byte[] sync) throws IOException {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(datums, "datums");
        Objects.requireNonNull(out, "out");
        if (datums instanceof FileBlocks) {
            throw new IllegalArgumentException("File blocks carry their own sync marker: write them without one");
        }
        if (sync.length != SYNC_SIZE) {
            throw new IllegalArgumentException("The sync marker must be " + SYNC_SIZE + " bytes, not " + sync.length);
        }
        if (!writing.compareAndSet(false, true)) {
            throw new IllegalStateException("This writer is writing another file: use one writer per thread");
        }
        try {
            if (closed) {
                throw new IllegalStateException("This writer is closed");
            }
            byte[] marker = sync.clone();
            long written = writeHeader(schema, marker, out);
            written += codecs.uncompressed() ? cuts.writeUncompressed(datums, marker, out)
                    : writeCompressed(datums, marker, out);
            out.flush();
            return written;
        } finally {
            trimIdleBlocks();
            writing.set(false);
        }
    }

    long writeHeader(Schema schema, byte[] sync, OutputStream out) throws IOException {
        return ContainerHeader.write(schema, codecNameBytes, metadata, sync, out);
    }

    int syncInterval() {
        return syncInterval;
    }

    /** Runs a block's compression on the pool if it takes it; otherwise whoever writes the block runs it. */
    void compressSoon(FutureTask<?> task) {
        try {
            pool.execute(task);
        } catch (RejectedExecutionException e) {
            // a saturated or shut down pool: the block is compressed when its file is written
        }
    }

    /**
     * Appends {@code source[offset, offset + size)} compressed by this writer's codec (as it is, for codec null) to
     * {@code out}.
     */
    void compress(byte[] source, int offset, int size, BlockBuffer out) throws IOException {
        codecs.compress(source, offset, size, out);
    }

    /** Releases the compressors and buffers. Neither the pool nor any stream is touched. Idempotent. */
    @Override
    public void close() {
        if (!writing.compareAndSet(false, true)) {
            throw new IllegalStateException("Cannot close the writer while it writes a file");
        }
        try {
            closed = true;
            idleBlocks.clear();
            codecs.close();
        } finally {
            writing.set(false);
        }
    }

    private long writeCompressed(DatumSource datums, byte[] sync, OutputStream out) throws IOException {
        ArrayDeque<StreamedBlock> inFlight = new ArrayDeque<>(maxBlocksInFlight);
        boolean finished = false;
        try {
            long written = 0;
            int count = datums.count();
            for (int first = 0; first < count;) {
                int end = cuts.end(datums, first);
                while (inFlight.size() >= maxBlocksInFlight) {
                    written += writeOldest(inFlight, out);
                }
                StreamedBlock block = idleBlocks.isEmpty() ? new StreamedBlock(codecs) : idleBlocks.pop();
                block.prepare(datums, first, end, (int) BlockCuts.size(datums, first, end), sync);
                inFlight.addLast(block);
                submit(block);
                while (!inFlight.isEmpty() && inFlight.peekFirst().task.isDone()) {
                    written += writeOldest(inFlight, out);
                }
                first = end;
            }
            while (!inFlight.isEmpty()) {
                written += writeOldest(inFlight, out);
            }
            finished = true;
            return written;
        } finally {
            if (!finished) {
                abandon(inFlight);
            }
        }
    }

    private void submit(StreamedBlock block) throws IOException {
        block.task = new FutureTask<>(block);
        try {
            pool.execute(block.task);
        } catch (RejectedExecutionException e) {
            if (pool.isShutdown()) {
                throw new IOException("The Avro writer's thread pool is shut down", e);
            }
            // a saturated pool: the task stays new, and writeOldest runs it on this thread
        }
    }

    /** Waits for the oldest block (compressing it here if no pool thread has started it), then writes it. */
    private long writeOldest(ArrayDeque<StreamedBlock> inFlight, OutputStream out) throws IOException {
        StreamedBlock block = inFlight.peekFirst();
        awaitCompressed(block.task);
        inFlight.pollFirst();
        int length = block.out.position() - block.frameStart;
        out.write(block.out.array(), block.frameStart, length);
        block.release();
        idleBlocks.push(block);
        return length;
    }

    /**
     * Waits for a block's compression, running it on this thread if no pool thread has started it, so that a write
     * always makes progress; a failure comes back as the IOException of a write.
     */
    void awaitCompressed(FutureTask<?> task) throws IOException {
        task.run(); // does nothing if a pool thread has started or finished it
        try {
            task.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while writing an Avro file");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IOException("Could not compress an Avro block with codec " + codecs.codecName() + ": " + cause,
                    cause);
        }
    }

    /** After a failure: lets every block still in flight finish (doing nothing), so no task outlives the write. */
    private void abandon(ArrayDeque<StreamedBlock> inFlight) {
        for (StreamedBlock block : inFlight) {
            block.abandoned = true;
        }
        boolean interrupted = Thread.interrupted();
        for (StreamedBlock block : inFlight) {
            block.task.run();
            while (true) {
                try {
                    block.task.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | CancellationException e) {
                    break;
                }
            }
            block.release();
            idleBlocks.push(block);
        }
        inFlight.clear();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** A buffer larger than this was grown by a rare huge datum: it is dropped, not kept for the next block. */
    long keptBufferLimit() {
        return 2L * syncInterval + (1 << 16);
    }

    /** Drops block buffers a huge datum made much larger than a block usually needs. */
    private void trimIdleBlocks() {
        long limit = keptBufferLimit();
        idleBlocks.removeIf(block -> block.out.capacity() > limit
                || (block.gathered != null && block.gathered.length > limit));
        while (idleBlocks.size() > maxBlocksInFlight) {
            idleBlocks.pop();
        }
    }

}
