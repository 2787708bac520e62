package io.hivesink.batch;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/**
 * Makes the closed batch from its encoded chunks: one record group per file (table, partition, schema) holding its
 * records' datums in arrival order, in the order the groups first appeared, with their statistics merged across
 * chunks; and the records set aside as rejected.
 */
final class BatchAssembler {

    private BatchAssembler() {
    }

    /**
     * @throws RuntimeException the first chunk's failure, if a chunk ended with one
     */
    static Batch assemble(String id, List<EncodedChunk> encoded, Map<TopicPartition, Long> fromOffsets,
            Map<TopicPartition, Long> nextOffsets, long encodedBytes, long skipped) {
        for (EncodedChunk chunk : encoded) {
            if (chunk.failure != null) {
                throw chunk.failure;
            }
        }
        IdentityHashMap<RecordGroup, GroupDatums> datums = new IdentityHashMap<>();
        IdentityHashMap<RecordGroup, GroupStats> stats = new IdentityHashMap<>();
        List<RecordGroup> order = new ArrayList<>();
        List<RejectedRecord> rejected = new ArrayList<>();
        long landed = 0;
        for (int c = 0; c < encoded.size(); c++) {
            EncodedChunk chunk = encoded.get(c);
            rejected.addAll(chunk.rejected);
            landed += chunk.count;
            chunk.stats.forEach((group, chunkStats) ->
                    stats.computeIfAbsent(group, g -> new GroupStats()).append(chunkStats));
            for (int r = 0; r < chunk.count; r++) {
                RecordGroup group = chunk.groups[r];
                GroupDatums groupDatums = datums.get(group);
                if (groupDatums == null) {
                    groupDatums = new GroupDatums(encoded);
                    datums.put(group, groupDatums);
                    order.add(group);
                }
                groupDatums.add(c, r);
            }
        }
        List<RecordGroup> groups = new ArrayList<>(order.size());
        for (RecordGroup group : order) {
            groups.add(new RecordGroup(group.layout(), group.partition(), datums.get(group), stats.get(group)));
        }
        return new Batch(id, groups, rejected, fromOffsets, nextOffsets, landed, encodedBytes, skipped);
    }
}
