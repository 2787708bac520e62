package io.hivesink.avro.container;

import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;

import io.hivesink.format.DatumSource;

/**
 * One block of a streaming write in flight: which datums it holds, and the buffer its framed, compressed bytes go to.
 * Run on the pool (or by the writing thread), it gathers its datums into one array unless they already lie back to
 * back in one page, and compresses them. Kept for the next block once written.
 */
final class StreamedBlock implements Callable<Void> {

    final BlockBuffer out = new BlockBuffer(256);
    private final CodecContexts codecs;
    /** The block's datums copied back to back, when they do not already lie so in one page. */
    byte[] gathered;
    private DatumSource datums;
    private int first;
    private int end;
    private int size;
    private byte[] sync;
    /** Set once the write failed: the block does nothing when it runs. */
    volatile boolean abandoned;
    FutureTask<Void> task;
    /** Where the framed block starts in {@link #out}, once compressed. */
    int frameStart;

    StreamedBlock(CodecContexts codecs) {
        this.codecs = codecs;
    }

    void prepare(DatumSource source, int firstDatum, int endDatum, int bytes, byte[] marker) {
        this.datums = source;
        this.first = firstDatum;
        this.end = endDatum;
        this.size = bytes;
        this.sync = marker;
        this.abandoned = false;
    }

    void release() {
        datums = null;
        task = null;
    }

    @Override
    public Void call() throws IOException {
        if (abandoned) {
            return null;
        }
        byte[] source = datums.page(first);
        int offset = datums.start(first);
        int next = offset + datums.length(first);
        for (int i = first + 1; i < end && source != null; i++) {
            if (datums.page(i) == source && datums.start(i) == next) {
                next += datums.length(i);
            } else {
                source = null;
            }
        }
        if (source == null) { // not back to back in one page: copy them together
            if (gathered == null || gathered.length < size) {
                gathered = new byte[size + (size >> 3)];
            }
            int at = 0;
            for (int i = first; i < end; i++) {
                int length = datums.length(i);
                System.arraycopy(datums.page(i), datums.start(i), gathered, at, length);
                at += length;
            }
            source = gathered;
            offset = 0;
        }
        out.reset();
        codecs.compress(source, offset, size, out);
        frameStart = out.frame(end - first, sync);
        return null;
    }
}
