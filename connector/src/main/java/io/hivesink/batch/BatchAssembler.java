package io.hivesink.batch;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.apache.kafka.common.TopicPartition;

import io.hivesink.avro.container.FileBlocks;
import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.format.DatumSource;

/**
 * Makes the open batch from its encoded chunks, taken in order as they are encoded: one record group per file
 * (table, partition, schema) holding its records' datums in arrival order, in the order the groups first appeared,
 * with their statistics merged across chunks; and the records set aside as rejected.
 *
 * <p>A group's datums are either left in their chunks and picked out when the file is written ({@link GroupDatums}),
 * or, when blocks are compressed early, copied into the table's writer's {@link FileBlocks} as each chunk is taken:
 * its blocks are then compressed as they fill, while the batch still takes records, and the chunk is let go at once.
 */
final class BatchAssembler {

    /**
     * The writer of each table's files, whose blocks are compressed as they fill; null (or null for a table, one not
     * in Avro): datums stay in chunks.
     */
    private final Function<String, ParallelContainerWriter> earlyWriters;
    /** The chunks the groups' datums lie in, when they stay there; the assembled batch keeps this list. */
    private List<EncodedChunk> chunks = new ArrayList<>();
    private final IdentityHashMap<RecordGroup, GroupFile> files = new IdentityHashMap<>();
    private final IdentityHashMap<RecordGroup, GroupStats> stats = new IdentityHashMap<>();
    private final List<RecordGroup> order = new ArrayList<>();
    private final List<RejectedRecord> rejected = new ArrayList<>();
    private int takenChunks;
    private long landed;
    private long takenBytes;
    /** With early writers: bytes of the chunks kept because a group (a columnar table's) picks datums from them. */
    private long keptChunkBytes;

    BatchAssembler(Function<String, ParallelContainerWriter> earlyWriters) {
        this.earlyWriters = earlyWriters;
    }

    /** Adds the next chunk of the open batch (chunks come in the order their records were taken). */
    @SuppressWarnings("ReferenceEquality") // the last group's file is reused while the same group repeats
    void take(EncodedChunk chunk) {
        int index = takenChunks++;
        chunks.add(chunk);
        rejected.addAll(chunk.rejected);
        landed += chunk.count;
        takenBytes += chunk.data.length;
        chunk.stats.forEach((group, chunkStats) ->
                stats.computeIfAbsent(group, g -> new GroupStats()).append(chunkStats));
        RecordGroup lastGroup = null;
        GroupFile lastFile = null;
        boolean picked = false;
        for (int r = 0; r < chunk.count; r++) {
            RecordGroup group = chunk.groups[r];
            if (group != lastGroup) {
                lastGroup = group;
                lastFile = files.get(group);
                if (lastFile == null) {
                    lastFile = newFile(group);
                    files.put(group, lastFile);
                    order.add(group);
                }
                picked |= lastFile instanceof GroupDatums;
            }
            lastFile.add(chunk, index, r);
        }
        if (earlyWriters != null) {
            if (picked) {
                keptChunkBytes += chunk.data.length;
            } else {
                chunks.set(index, null); // every datum was copied into compressed blocks: let the chunk go
            }
        }
    }

    private GroupFile newFile(RecordGroup group) {
        if (earlyWriters == null) {
            return new GroupDatums(chunks);
        }
        ParallelContainerWriter writer = earlyWriters.apply(group.table());
        if (writer == null) { // a columnar table: its datums stay in their chunks
            return new GroupDatums(chunks);
        }
        return new EarlyBlocks(writer.openFile());
    }

    /** The batch of the chunks taken since the last {@link #reset}. */
    Batch assemble(String id, Map<TopicPartition, Long> fromOffsets, Map<TopicPartition, Long> nextOffsets,
            Map<TopicPartition, Long> startOffsets, long encodedBytes, long skipped) {
        List<RecordGroup> groups = new ArrayList<>(order.size());
        for (RecordGroup group : order) {
            groups.add(new RecordGroup(group.layout(), group.partition(), files.get(group).datums(),
                    stats.get(group)));
        }
        return new Batch(id, groups, rejected, fromOffsets, nextOffsets, startOffsets, landed, encodedBytes,
                skipped, earlyWriters == null ? takenBytes : keptChunkBytes);
    }

    /** Encoded bytes of the chunks taken. */
    long takenBytes() {
        return takenBytes;
    }

    /** What the chunks taken hold in the heap now: less than their encoded bytes once blocks are compressed. */
    long heldBytes() {
        if (earlyWriters == null) {
            return takenBytes;
        }
        long held = keptChunkBytes;
        for (GroupFile file : files.values()) {
            if (file instanceof EarlyBlocks) {
                held += file.datums().heldBytes();
            }
        }
        return held;
    }

    /** Drops the open batch: its blocks not compressed yet are not compressed. */
    void discard() {
        for (GroupFile file : files.values()) {
            file.datums().discard();
        }
        reset();
    }

    /** Starts the next batch (the groups of the one assembled stay with it). */
    void reset() {
        chunks = new ArrayList<>();
        files.clear();
        stats.clear();
        order.clear();
        rejected.clear();
        takenChunks = 0;
        landed = 0;
        takenBytes = 0;
        keptChunkBytes = 0;
    }

    /** Where a group's datums go as chunks are taken. */
    interface GroupFile {

        void add(EncodedChunk chunk, int chunkIndex, int record);

        DatumSource datums();
    }

    /** A group's datums copied into a file whose blocks are compressed as they fill. */
    private record EarlyBlocks(FileBlocks blocks) implements GroupFile {

        @Override
        public void add(EncodedChunk chunk, int chunkIndex, int record) {
            blocks.append(chunk.data, chunk.start(record), chunk.length(record));
        }

        @Override
        public DatumSource datums() {
            return blocks;
        }
    }
}
