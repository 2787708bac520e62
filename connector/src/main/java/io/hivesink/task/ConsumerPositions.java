package io.hivesink.task;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Where Connect's consumer stands on each assigned topic-partition against where the task wants it, and which records
 * of a delivery the task therefore does not take. The consumer's offsets are Kafka's; the task's are the metastore's.
 * The two differ after a claim ({@link ResumePoints}), after a batch is dropped (its records are read again), and
 * while a claim waits for the metastore; every record the task takes must come in order from the offset it expects.
 * <p>
 * A delivery may have been fetched before a seek took effect: after a retriable failure Connect hands the same
 * records again, and a rebalance that only revokes partitions applies no seek before the records of its poll. Taken,
 * a record above the sought offset would come ahead of the ones below it, which the consumer then brings as already
 * taken. So in the next delivery, the first record of such a partition that lies past the offset the task expects is
 * not taken: the partition is sought there again and the rest of it skipped. Records from the sought offset on, in
 * order, are taken. (A gap in Kafka's offsets just there costs one needless seek.)
 */
final class ConsumerPositions {

    /** Asks Connect to read partitions again from the given offsets (before its next delivery). */
    private final Consumer<Map<TopicPartition, Long>> rewinder;
    /** Claimed partitions whose consumer's position is not checked against the committed offsets yet. */
    private final ResumePoints resumes;
    /** What the task last reported to Kafka per partition, at Connect's offset commits. */
    private final Map<TopicPartition, Long> reportedToKafka = new HashMap<>();
    /**
     * Partitions whose records in this delivery are not taken: sought during it (its remaining records of them are
     * stale), or not claimed yet.
     */
    private final Set<TopicPartition> skippedInDelivery = new HashSet<>();
    /** Partitions sought since the last delivery the task took, and where to. */
    private final Map<TopicPartition, Long> soughtSinceTaken = new HashMap<>();
    /** The partitions sought since the last delivery taken, for this delivery. */
    private final Map<TopicPartition, Long> staleInDelivery = new HashMap<>();
    /**
     * Seeks asked for while partitions close or at an offset commit (which may be the one Connect makes before it
     * closes partitions), made at the next delivery or claim: Connect makes a seek at its next poll, and its consumer
     * throws there at a seek of a partition no longer assigned (the task would fail), which a close in the same poll
     * can make of a partition that stayed. Those that close meanwhile are forgotten: their next owner resumes them
     * from the committed offsets.
     */
    private final Map<TopicPartition, Long> deferred = new HashMap<>();
    /** Inside Connect's offset commit or a close: seeks wait ({@link #deferred}). */
    private boolean deferring;
    /**
     * Partitions whose records wait for a claim (put off, or taken by another task), and the first offset of theirs
     * the task dropped or did not take since (-1 if none): claimed later with no offset committed to check the
     * consumer against, a partition is read again from there ({@link #claimedLate}).
     */
    private final Map<TopicPartition, Long> skippedFrom = new HashMap<>();

    ConsumerPositions(Consumer<Map<TopicPartition, Long>> rewinder, ResumePoints resumes) {
        this.rewinder = rewinder;
        this.resumes = resumes;
    }

    /** A delivery starts: the records of partitions not claimed yet are skipped, and seeks that came due are made. */
    void deliveryStarts(Set<TopicPartition> unclaimed) {
        skippedInDelivery.clear();
        staleInDelivery.clear();
        staleInDelivery.putAll(soughtSinceTaken);
        waiting(unclaimed);
        seekDeferred();
    }

    /**
     * The partitions wait for a claim, or for its check: the rest of their records in this delivery are not taken
     * (called again once the delivery's claims are made: one may have put a partition on probation).
     */
    void waiting(Set<TopicPartition> partitions) {
        skippedInDelivery.addAll(partitions);
        partitions.forEach(tp -> skippedFrom.putIfAbsent(tp, -1L));
    }

    /**
     * Makes the seeks asked for inside an offset commit or a close ({@link #deferringSeeks}), for partitions still
     * assigned (closed ones were forgotten).
     */
    void seekDeferred() {
        if (!deferred.isEmpty()) {
            Map<TopicPartition, Long> due = Map.copyOf(deferred);
            deferred.clear();
            seek(due);
        }
    }

    /** Runs Connect's offset commit or a close: seeks asked for meanwhile wait for the next delivery or claim. */
    <T> T deferringSeeks(Supplier<T> call) {
        deferring = true;
        try {
            return call.get();
        } finally {
            deferring = false;
        }
    }

    /**
     * Another task took the partitions: nothing of them is sought or checked any more, and the rest of this
     * delivery's records of them are not taken.
     *
     * @param dropped where the records of them that were dropped started
     */
    void lost(Map<TopicPartition, Long> dropped, Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            skippedFrom.merge(tp, dropped.getOrDefault(tp, -1L), Least::of);
        }
        resumes.forget(partitions);
        deferred.keySet().removeAll(partitions);
        soughtSinceTaken.keySet().removeAll(partitions);
        staleInDelivery.keySet().removeAll(partitions);
        skippedInDelivery.addAll(partitions);
    }

    /**
     * Whether the record is taken; if not, its partition may have been sought.
     *
     * @param ahead whether the record lies past the offset the task expects of its partition
     */
    boolean takes(SinkRecord record, Predicate<SinkRecord> ahead) {
        if (!skippedInDelivery.isEmpty() && skippedInDelivery.contains(topicPartition(record))) {
            if (!skippedFrom.isEmpty()) {
                long offset = record.kafkaOffset();
                skippedFrom.computeIfPresent(topicPartition(record), (tp, from) -> Least.of(from, offset));
            }
            return false;
        }
        if (!staleInDelivery.isEmpty() && ahead.test(record)) {
            TopicPartition tp = topicPartition(record);
            Long soughtTo = staleInDelivery.get(tp);
            if (soughtTo != null) {
                seek(Map.of(tp, soughtTo)); // fetched before the seek took effect: once more, and skipped
                return false;
            }
        }
        if (!resumes.isEmpty()) {
            long seekTo = resumes.seekFor(record);
            if (seekTo >= 0) {
                seek(Map.of(topicPartition(record), seekTo));
                return false;
            }
        }
        return true;
    }

    /** The delivery was taken whole: the seeks before it have taken effect. */
    void deliveryTaken() {
        soughtSinceTaken.clear();
    }

    /** The partitions were claimed at these offsets, which the consumer's first record of each is checked against. */
    void claimed(Collection<TopicPartition> partitions, Map<TopicPartition, Long> committed) {
        // opened again: the consumer stands where Kafka's group offset says
        skippedFrom.keySet().removeAll(partitions);
        resumes.claimed(committed);
    }

    /**
     * Partitions whose claim was put off, or that another task took, were claimed during a delivery, and their records
     * are taken from here on. One with a committed offset is not sought, as at open (a record of it skipped while it
     * waited moved the consumer past the committed offset, which the first record taken from here on shows); one
     * without is sought to the first record dropped or skipped while it waited, if any.
     */
    void claimedLate(Collection<TopicPartition> partitions, Map<TopicPartition, Long> committed) {
        resumes.claimed(committed);
        skippedInDelivery.removeAll(partitions);
        Map<TopicPartition, Long> readAgain = new HashMap<>();
        for (TopicPartition tp : partitions) {
            Long from = skippedFrom.remove(tp);
            if (from != null && from >= 0 && !committed.containsKey(tp)) {
                readAgain.put(tp, from); // nothing committed to check the consumer against: what was dropped
            }
        }
        seek(readAgain);
    }

    /**
     * Has Connect read the partitions from these offsets before its next delivery; what is left of them in this
     * delivery is stale and skipped.
     */
    void seek(Map<TopicPartition, Long> offsets) {
        if (offsets.isEmpty()) {
            return;
        }
        resumes.forget(offsets.keySet());
        if (deferring) {
            deferred.putAll(offsets);
            return;
        }
        skippedInDelivery.addAll(offsets.keySet());
        soughtSinceTaken.putAll(offsets);
        rewinder.accept(offsets);
    }

    /**
     * Has Connect read dropped records again from these offsets. Connect takes the offset sought to for Kafka's group
     * offset: where Kafka was last told less (a batch was committed since), the partition is sought to the record
     * before, which is read through and skipped, so that the offset still reaches Kafka. (Sought to what Kafka was
     * told, it would read through every record since, which a skipped offset commit can make a long way.)
     */
    void readAgain(Map<TopicPartition, Long> from) {
        Map<TopicPartition, Long> seekTo = new HashMap<>(from);
        reportedToKafka.forEach((tp, told) -> seekTo.computeIfPresent(tp, (p, target) -> told < target ? target - 1
                : target));
        seek(seekTo);
    }

    /** Connect tells where its consumer stands, at its offset commit: see {@link ResumePoints}. */
    void positionsReported(Map<TopicPartition, OffsetAndMetadata> positions) {
        seek(resumes.positionsReported(positions));
    }

    /**
     * The offsets to report to Kafka for the partitions Connect asks about: those committed in the metastore, once
     * the consumer has passed them (Connect refuses an offset ahead of its position, which happens while a claimed
     * partition is read through to its committed offset).
     */
    Map<TopicPartition, OffsetAndMetadata> toReport(Map<TopicPartition, OffsetAndMetadata> positions,
            Map<TopicPartition, Long> committedOffsets) {
        Map<TopicPartition, OffsetAndMetadata> safe = new HashMap<>();
        positions.forEach((tp, position) -> {
            Long committed = committedOffsets.get(tp);
            if (committed != null) {
                long offset = Math.min(committed, position.offset());
                safe.put(tp, new OffsetAndMetadata(offset));
                reportedToKafka.put(tp, offset);
            }
        });
        return safe;
    }

    /** The partitions closed: nothing of them is remembered. */
    void closed(Collection<TopicPartition> partitions) {
        resumes.forget(partitions);
        soughtSinceTaken.keySet().removeAll(partitions);
        reportedToKafka.keySet().removeAll(partitions);
        deferred.keySet().removeAll(partitions);
        skippedFrom.keySet().removeAll(partitions);
    }

    private static TopicPartition topicPartition(SinkRecord record) {
        return new TopicPartition(record.topic(), record.kafkaPartition());
    }
}
