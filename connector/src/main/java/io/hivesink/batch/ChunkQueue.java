package io.hivesink.batch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.connect.errors.ConnectException;

/**
 * The open batch's chunks, encoded on the task's pool in the order they were submitted. At most
 * {@code maxInFlight} chunks wait to be encoded: beyond that {@link #submit} waits, which bounds the records held as
 * objects.
 */
final class ChunkQueue {

    private final ChunkEncoder encoder;
    private final ExecutorService pool;
    private final Semaphore inFlight;
    private final ChunkSizer sizer;
    private final List<Future<EncodedChunk>> chunks = new ArrayList<>();
    /** Chunks known to be encoded without a failure, from the first. */
    private int checked;
    private final AtomicLong encodedBytes = new AtomicLong();
    private final AtomicLong encodeNanos = new AtomicLong();

    ChunkQueue(ChunkEncoder encoder, ExecutorService pool, int maxInFlight, ChunkSizer sizer) {
        this.encoder = encoder;
        this.pool = pool;
        this.inFlight = new Semaphore(maxInFlight);
        this.sizer = sizer;
    }

    void submit(List<TakenRecord> chunk) {
        inFlight.acquireUninterruptibly();
        try {
            chunks.add(pool.submit(() -> {
                try {
                    long started = System.nanoTime();
                    EncodedChunk encoded = encoder.encode(chunk);
                    encodeNanos.addAndGet(System.nanoTime() - started);
                    encodedBytes.addAndGet(encoded.data.length);
                    sizer.observe(encoded.data.length, encoded.count);
                    return encoded;
                } finally {
                    inFlight.release();
                }
            }));
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }

    /** Throws the first bad record among the chunks encoded so far, without waiting for the others. */
    void throwFirstFailureSoFar() {
        while (checked < chunks.size() && chunks.get(checked).isDone()) {
            EncodedChunk chunk = result(chunks.get(checked));
            if (chunk.failure != null) {
                throw chunk.failure;
            }
            checked++;
        }
    }

    /** Waits until every chunk is encoded; the chunks, in order. */
    List<EncodedChunk> awaitAll() {
        List<EncodedChunk> encoded = new ArrayList<>(chunks.size());
        for (Future<EncodedChunk> chunk : chunks) {
            encoded.add(result(chunk));
        }
        return encoded;
    }

    /** Time spent encoding the chunks so far, summed over the threads that encoded them. */
    long encodeMs() {
        return encodeNanos.get() / 1_000_000;
    }

    /** Encoded bytes of the chunks encoded so far (the ones still in flight are not counted yet). */
    long encodedBytes() {
        return encodedBytes.get();
    }

    /** Forgets the chunks of a closed or dropped batch (wait for them first) and the encoder's file groups. */
    void clear() {
        chunks.clear();
        checked = 0;
        encodedBytes.set(0);
        encodeNanos.set(0);
        encoder.reset();
    }

    private static EncodedChunk result(Future<EncodedChunk> chunk) {
        try {
            return chunk.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while encoding records", e);
        } catch (ExecutionException e) {
            throw new ConnectException("Encoding records failed: " + e.getCause(), e.getCause());
        }
    }
}
