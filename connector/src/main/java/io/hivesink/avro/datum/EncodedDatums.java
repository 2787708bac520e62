package io.hivesink.avro.datum;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.hivesink.format.DatumSource;

/**
 * Avro-encoded records held back to back in fixed-size pages, in arrival order. A buffered record costs its encoded
 * bytes plus an int, not a graph of objects, and pages avoid the copying and doubled peak of one growing array.
 */
public final class EncodedDatums implements DatumSource {

    public static final int PAGE_SIZE = 1 << 20;

    private final List<byte[]> pages = new ArrayList<>();
    private int[] pageOfDatum = new int[64];
    private int[] startOfDatum = new int[64];
    private int[] lengthOfDatum = new int[64];
    private int count;
    private long bytes;
    private byte[] current;
    private int currentUsed;

    /** Appends one encoded datum, copying {@code length} bytes of {@code source} from {@code offset}. */
    public void add(byte[] source, int offset, int length) {
        if (current == null || currentUsed + length > current.length) {
            current = new byte[Math.max(PAGE_SIZE, length)];
            currentUsed = 0;
            pages.add(current);
        }
        System.arraycopy(source, offset, current, currentUsed, length);
        if (count == pageOfDatum.length) {
            int grown = count * 2;
            pageOfDatum = Arrays.copyOf(pageOfDatum, grown);
            startOfDatum = Arrays.copyOf(startOfDatum, grown);
            lengthOfDatum = Arrays.copyOf(lengthOfDatum, grown);
        }
        pageOfDatum[count] = pages.size() - 1;
        startOfDatum[count] = currentUsed;
        lengthOfDatum[count] = length;
        currentUsed += length;
        count++;
        bytes += length;
    }

    @Override
    public int count() {
        return count;
    }

    @Override
    public long bytes() {
        return bytes;
    }

    @Override
    public byte[] page(int datum) {
        return pages.get(pageOfDatum[datum]);
    }

    @Override
    public int start(int datum) {
        return startOfDatum[datum];
    }

    @Override
    public int length(int datum) {
        return lengthOfDatum[datum];
    }
}
