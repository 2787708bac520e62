package io.hivesink.avro.container;

import java.io.IOException;
import java.io.OutputStream;

import io.hivesink.format.DatumSource;

/**
 * Where a file's blocks end, by Avro's rule ({@code DataFileWriter}'s): a datum is appended to the open block, and the
 * block closes as soon as its uncompressed size reaches the sync interval; a datum is never split, so one larger than
 * the interval makes a block of its own. With codec {@code null} the blocks are written straight from the datums'
 * pages.
 */
final class BlockCuts {

    private final int syncInterval;

    BlockCuts(int syncInterval) {
        this.syncInterval = syncInterval;
    }

    /** The end (exclusive) of the block that starts at datum {@code first}. */
    int end(DatumSource datums, int first) {
        int count = datums.count();
        int end = first;
        long size = 0;
        do {
            size += datums.length(end++);
        } while (end < count && size < syncInterval
                && size + datums.length(end) <= ParallelContainerWriter.MAX_BLOCK_BYTES);
        return end;
    }

    /** The uncompressed size of datums {@code [first, end)}. */
    static long size(DatumSource datums, int first, int end) {
        long size = 0;
        for (int i = first; i < end; i++) {
            size += datums.length(i);
        }
        return size;
    }

    /** Writes the datums as blocks of codec {@code null}, straight from their pages. */
    long writeUncompressed(DatumSource datums, byte[] sync, OutputStream out) throws IOException {
        byte[] head = new byte[2 * AvroLongs.MAX_SIZE];
        long written = 0;
        int count = datums.count();
        for (int first = 0; first < count;) {
            int end = end(datums, first);
            long size = size(datums, first, end);
            int headSize = AvroLongs.put(size, head, AvroLongs.put(end - first, head, 0));
            out.write(head, 0, headSize);
            // one write per run of datums lying back to back in a page
            int i = first;
            while (i < end) {
                byte[] page = datums.page(i);
                int runStart = datums.start(i);
                int runEnd = runStart + datums.length(i);
                i++;
                while (i < end && datums.page(i) == page && datums.start(i) == runEnd) {
                    runEnd += datums.length(i);
                    i++;
                }
                out.write(page, runStart, runEnd - runStart);
            }
            out.write(sync, 0, ContainerHeader.SYNC_SIZE);
            written += headSize + size + ContainerHeader.SYNC_SIZE;
            first = end;
        }
        return written;
    }
}
