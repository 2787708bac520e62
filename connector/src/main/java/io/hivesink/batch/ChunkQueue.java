package io.hivesink.batch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;

/**
 * The open batch's chunks, encoded on the task's pool and handed on, in the order they were submitted, to a taker
 * ({@link BatchAssembler}) as soon as they and the ones before them are encoded; the queue then lets go of them. At
 * most {@code maxInFlight} chunks wait to be encoded: beyond that {@link #submit} waits, which bounds the records held
 * as objects. A chunk that failed for a reason that may pass (the metastore could not admit a table for now) is
 * encoded again in its place as its failure is thrown, so that the batch rides the outage with every record it took:
 * its records are not read again, and the chunks after it wait their turn.
 */
final class ChunkQueue {

    private final ChunkEncoder encoder;
    private final ExecutorService pool;
    private final Semaphore inFlight;
    private final ChunkSizer sizer;
    private final Consumer<EncodedChunk> taker;
    /** The batch's chunks; null once taken. */
    private final List<Future<EncodedChunk>> chunks = new ArrayList<>();
    /** Chunks handed to the taker, from the first: encoded without a failure. */
    private int taken;
    /** The taker failed partway through a chunk: the batch holds part of it and must be dropped, not closed. */
    private Throwable takerFailure;
    private final AtomicLong encodedBytes = new AtomicLong();
    private final AtomicLong encodeNanos = new AtomicLong();

    ChunkQueue(ChunkEncoder encoder, ExecutorService pool, int maxInFlight, ChunkSizer sizer,
            Consumer<EncodedChunk> taker) {
        this.encoder = encoder;
        this.taker = taker;
        this.pool = pool;
        this.inFlight = new Semaphore(maxInFlight);
        this.sizer = sizer;
    }

    void submit(List<TakenRecord> chunk) {
        chunks.add(encodeOnPool(chunk));
    }

    private Future<EncodedChunk> encodeOnPool(List<TakenRecord> chunk) {
        inFlight.acquireUninterruptibly();
        try {
            return pool.submit(() -> {
                try {
                    long started = System.nanoTime();
                    EncodedChunk encoded = encoder.encode(chunk);
                    encodeNanos.addAndGet(System.nanoTime() - started);
                    if (encoded.failure == null) {
                        encodedBytes.addAndGet(encoded.data.length);
                        sizer.observe(encoded.data.length, encoded.count);
                    }
                    return encoded.keepingToRetry(chunk);
                } finally {
                    inFlight.release();
                }
            });
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }

    /**
     * Hands the chunks encoded so far to the taker, in order, without waiting for the others; throws the first bad
     * record among them (its chunk is not taken).
     */
    void takeEncodedSoFar() {
        while (taken < chunks.size() && chunks.get(taken).isDone()) {
            take();
        }
    }

    /** Waits until every chunk is encoded and hands the rest to the taker; throws as {@link #takeEncodedSoFar}. */
    void takeAll() {
        while (taken < chunks.size()) {
            take();
        }
    }

    private void take() {
        if (takerFailure != null) {
            throw new ConnectException("The open batch could not take its records (" + takerFailure + "): it "
                    + "cannot be committed, and is dropped; its records are read again from the offsets committed in "
                    + "the metastore", takerFailure);
        }
        EncodedChunk chunk = result(chunks.get(taken));
        if (chunk.toRetry != null) {
            chunks.set(taken, encodeOnPool(chunk.toRetry));
            throw new RetriableException("Records of the open batch could not be encoded for now (" + chunk.failure
                    .getMessage() + "); they stay in the batch and are encoded again", chunk.failure);
        }
        if (chunk.failure != null) {
            throw chunk.failure;
        }
        try {
            taker.accept(chunk);
        } catch (RuntimeException | Error e) {
            takerFailure = e; // taken again, the records it took before failing would land twice
            throw e;
        }
        chunks.set(taken, null);
        taken++;
    }

    /** Waits until no chunk is being encoded, whatever their outcome (the batch is dropped). */
    void awaitQuietly() {
        boolean interrupted = false;
        for (int i = taken; i < chunks.size(); i++) {
            while (true) {
                try {
                    chunks.get(i).get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
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
        taken = 0;
        takerFailure = null;
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
