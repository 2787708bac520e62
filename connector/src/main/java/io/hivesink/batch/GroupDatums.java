package io.hivesink.batch;

import java.util.Arrays;
import java.util.List;

import io.hivesink.format.DatumSource;

/** The datums of one file group, picked out of the batch's chunks in record order, without copying them. */
final class GroupDatums implements DatumSource, BatchAssembler.GroupFile {

    private final List<EncodedChunk> chunks;
    private int[] chunkOf = new int[16];
    private int[] recordOf = new int[16];
    private int count;
    private long bytes;

    GroupDatums(List<EncodedChunk> chunks) {
        this.chunks = chunks;
    }

    @Override
    public void add(EncodedChunk chunk, int chunkIndex, int record) {
        add(chunkIndex, record);
    }

    @Override
    public DatumSource datums() {
        return this;
    }

    void add(int chunk, int record) {
        if (count == chunkOf.length) {
            chunkOf = Arrays.copyOf(chunkOf, count * 2);
            recordOf = Arrays.copyOf(recordOf, count * 2);
        }
        chunkOf[count] = chunk;
        recordOf[count] = record;
        count++;
        bytes += chunks.get(chunk).length(record);
    }

    @Override
    public int count() {
        return count;
    }

    @Override
    public byte[] page(int datum) {
        return chunks.get(chunkOf[datum]).data;
    }

    @Override
    public int start(int datum) {
        return chunks.get(chunkOf[datum]).start(recordOf[datum]);
    }

    @Override
    public int length(int datum) {
        return chunks.get(chunkOf[datum]).length(recordOf[datum]);
    }

    @Override
    public long bytes() {
        return bytes;
    }
}
