package io.hivesink.batch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.confluent.FramedDatum;
import io.hivesink.input.ConnectInput;
import io.hivesink.input.RecordInput;
import io.hivesink.route.TableRouter;

/**
 * The open batch. Records are taken in {@link #add} on the task thread and encoded in chunks on the task's pool
 * while more arrive, so that most of the encoding is done when the batch closes; what stays buffered is the encoded
 * bytes. A record at an offset already buffered or committed (a redelivery after a retriable failure) is skipped,
 * so it lands once.
 */
public final class BatchBuffer {

    /**
     * Encoded bytes per chunk: large enough to amortise the hand-off, small enough to spread over threads and to
     * stay a regular object for G1 (arrays of half a region or more are "humongous" and waste the rest of their
     * regions; regions are at least 1 MiB).
     */
    static final int CHUNK_BYTES = 256 * 1024;
    /** Records per chunk while the record size is not known yet, and the bounds once it is. */
    static final int FIRST_CHUNK_RECORDS = 256;
    static final int MIN_CHUNK_RECORDS = 16;
    static final int MAX_CHUNK_RECORDS = 4096;

    private final ChunkEncoder encoder;
    private final ExecutorService pool;
    private final Semaphore chunksInFlight;
    private final String batchIdPrefix;

    private final List<Future<EncodedChunk>> chunks = new ArrayList<>();
    private int chunksChecked;
    private List<SinkRecord> pending = new ArrayList<>();
    private final AtomicLong encodedBytes = new AtomicLong();
    /** The table of each pending record, or null where routing is left to the encoder (it failed here). */
    private List<String> pendingTables = new ArrayList<>();
    /** What {@link #input} made of each pending record's value, or the DataException it threw. */
    private List<Object> pendingValues = new ArrayList<>();
    private final RecordInput input;
    /** Records of the open batch per table, counted as they are taken. */
    private final Map<String, long[]> tableRecords = new HashMap<>();
    private final TableRouter router;
    /** Consecutive records mostly come from one topic: its table is at hand without a look-up. */
    private String lastTopic;
    private String lastTable;
    /** The counter of the table of the last record taken. */
    private String countedTable;
    private long[] tableCount;
    /** Over the task's life, for the average record size. */
    private final AtomicLong observedBytes = new AtomicLong();
    private final AtomicLong observedRecords = new AtomicLong();
    private int chunkRecords = FIRST_CHUNK_RECORDS;
    private final Map<TopicPartition, PartitionProgress> progress = new HashMap<>();
    /** Consecutive records mostly come from one partition: its progress is at hand without a look-up. */
    private PartitionProgress lastProgress;
    private long batchSequence;
    private long records;
    private long openedAtMs;

    /**
     * @param pool the task's worker pool; chunks are encoded there
     * @param maxChunksInFlight chunks submitted but not yet encoded before {@link #add} waits (bounds the records
     *     held as objects)
     */
    public BatchBuffer(TableRouter router, TableLayouts layouts, String batchIdPrefix, ExecutorService pool,
            int maxChunksInFlight) {
        this(router, layouts, batchIdPrefix, pool, maxChunksInFlight, false);
    }

    /**
     * @param rejectBadRecords true: a record that cannot land is set aside in {@link Batch#rejected()} and the others
     *     go on; false: {@link #add} or {@link #drain} throws its error
     */
    public BatchBuffer(TableRouter router, TableLayouts layouts, String batchIdPrefix, ExecutorService pool,
            int maxChunksInFlight, boolean rejectBadRecords) {
        this(ConnectInput.INSTANCE, router, layouts, batchIdPrefix, pool, maxChunksInFlight, rejectBadRecords);
    }

    /**
     * @param input reads each record's value as it is taken (Connect data, or Confluent-framed Avro)
     */
    public BatchBuffer(RecordInput input, TableRouter router, TableLayouts layouts, String batchIdPrefix,
            ExecutorService pool, int maxChunksInFlight, boolean rejectBadRecords) {
        this.input = input;
        this.encoder = new ChunkEncoder(router, layouts, rejectBadRecords);
        this.router = router;
        this.pool = pool;
        this.chunksInFlight = new Semaphore(maxChunksInFlight);
        this.batchIdPrefix = batchIdPrefix;
    }

    /**
     * Takes one record into the open batch; it is encoded in the background.
     *
     * @return false if the record was already buffered or committed and was skipped
     * @throws DataException naming a record (topic, partition, offset) that could not be encoded, found since the
     *     last call, unless bad records are rejected; ConnectException if encoding failed for another reason
     * @throws org.apache.kafka.connect.errors.RetriableException if the record's value cannot be read for now (the
     *     schema registry is out of reach): the record is not taken, so it is taken when delivered again
     */
    @SuppressWarnings("ReferenceEquality") // the last table's count is reused while the same name instance repeats
    public boolean add(SinkRecord record, long nowMs) {
        PartitionProgress partition = progressOf(record);
        long offset = record.kafkaOffset();
        if (offset < partition.next) {
            return false;
        }
        Object value;
        try {
            value = input.valueOf(record);
        } catch (DataException e) {
            value = e; // the encoder reports it with the record, in order with the others
        }
        if (records == 0) {
            openedAtMs = nowMs;
        }
        pending.add(record);
        pendingValues.add(value);
        String table = tableOf(record, value);
        pendingTables.add(table);
        if (table != null) {
            if (table != countedTable) {
                countedTable = table;
                tableCount = tableRecords.computeIfAbsent(table, t -> new long[1]);
            }
            tableCount[0]++;
        }
        records++;
        partition.next = offset + 1;
        if (partition.batchFirst < 0) {
            partition.batchFirst = offset;
        }
        if (pending.size() >= chunkRecords) {
            submitPending();
        }
        return true;
    }

    private PartitionProgress progressOf(SinkRecord record) {
        PartitionProgress last = lastProgress;
        if (last != null && last.tp.partition() == record.kafkaPartition()
                && last.tp.topic().equals(record.topic())) {
            return last;
        }
        TopicPartition tp = new TopicPartition(record.topic(), record.kafkaPartition());
        lastProgress = progress.computeIfAbsent(tp, PartitionProgress::new);
        return lastProgress;
    }

    /** Starts encoding the records taken since the last chunk, and reports a bad record found by then. */
    public void submitPending() {
        throwFirstFailureSoFar();
        if (pending.isEmpty()) {
            return;
        }
        List<SinkRecord> chunk = pending;
        List<String> chunkTables = pendingTables;
        List<Object> chunkValues = pendingValues;
        chunkRecords = chunkRecordsForObservedSize();
        pending = new ArrayList<>(chunkRecords);
        pendingTables = new ArrayList<>(chunkRecords);
        pendingValues = new ArrayList<>(chunkRecords);
        chunksInFlight.acquireUninterruptibly();
        try {
            chunks.add(pool.submit(() -> {
                try {
                    EncodedChunk encoded = encoder.encode(chunk, chunkTables, chunkValues);
                    encodedBytes.addAndGet(encoded.data.length);
                    observedBytes.addAndGet(encoded.data.length);
                    observedRecords.addAndGet(encoded.count);
                    return encoded;
                } finally {
                    chunksInFlight.release();
                }
            }));
        } catch (RuntimeException e) {
            chunksInFlight.release();
            throw e;
        }
    }

    /**
     * The record's table, routed here on the task thread so that per-table limits count exactly; null if routing
     * fails, in which case the encoder routes it again and reports the error with the record.
     */
    private String tableOf(SinkRecord record, Object value) {
        try {
            if (router.routesByTopic()) {
                if (!record.topic().equals(lastTopic)) {
                    lastTable = router.tableFor(record.topic());
                    lastTopic = record.topic();
                }
                return lastTable;
            }
            if (value instanceof FramedDatum datum) {
                return router.tableFor(record, datum.routeFields());
            }
            return value instanceof Struct struct ? router.tableFor(record, struct) : null;
        } catch (DataException e) {
            return null;
        }
    }

    /** Records of the open batch routed to {@code table} so far. */
    public long tableRecordCount(String table) {
        long[] count = tableRecords.get(table);
        return count == null ? 0 : count[0];
    }

    private int chunkRecordsForObservedSize() {
        long count = observedRecords.get();
        if (count == 0) {
            return chunkRecords;
        }
        long averageBytes = Math.max(1, observedBytes.get() / count);
        return (int) Math.max(MIN_CHUNK_RECORDS, Math.min(MAX_CHUNK_RECORDS, CHUNK_BYTES / averageBytes));
    }

    public boolean isEmpty() {
        return records == 0;
    }

    public long recordCount() {
        return records;
    }

    /** Encoded bytes of the records encoded so far (the ones still in flight are not counted yet). */
    public long byteCount() {
        return encodedBytes.get();
    }

    public long openedAtMs() {
        return openedAtMs;
    }

    /** Closes the open batch, waiting for its records to be encoded, and starts an empty one. */
    public Batch drain() {
        submitPending();
        List<EncodedChunk> encoded = awaitChunks();
        try {
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
            Map<TopicPartition, Long> nextOffsets = new HashMap<>();
            for (PartitionProgress partition : progress.values()) {
                if (partition.batchFirst >= 0) {
                    nextOffsets.put(partition.tp, partition.next);
                }
            }
            batchSequence++;
            String id = batchIdPrefix + "-" + batchSequence;
            return new Batch(id, groups, rejected, nextOffsets, landed, encodedBytes.get());
        } finally {
            reset();
        }
    }

    /**
     * Drops the open batch. Its partitions are forgotten, so records re-read from their last committed offset are
     * accepted again.
     *
     * @return per partition that had records in the dropped batch, the offset of its first dropped record
     */
    public Map<TopicPartition, Long> discard() {
        Map<TopicPartition, Long> dropped = new HashMap<>();
        for (PartitionProgress partition : progress.values()) {
            if (partition.batchFirst >= 0) {
                dropped.put(partition.tp, partition.batchFirst);
            }
        }
        awaitChunks();
        reset();
        forget(dropped.keySet());
        return dropped;
    }

    /** Forgets where the given partitions stood (they were revoked or rewound). */
    public void forget(java.util.Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            progress.remove(tp);
        }
        lastProgress = null;
    }

    private List<EncodedChunk> awaitChunks() {
        List<EncodedChunk> encoded = new ArrayList<>(chunks.size());
        for (Future<EncodedChunk> chunk : chunks) {
            encoded.add(result(chunk));
        }
        return encoded;
    }

    /** Throws the first bad record among the chunks encoded so far, without waiting for the others. */
    private void throwFirstFailureSoFar() {
        while (chunksChecked < chunks.size() && chunks.get(chunksChecked).isDone()) {
            EncodedChunk chunk = result(chunks.get(chunksChecked));
            if (chunk.failure != null) {
                throw chunk.failure;
            }
            chunksChecked++;
        }
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

    private void reset() {
        chunks.clear();
        chunksChecked = 0;
        pending = new ArrayList<>();
        pendingTables = new ArrayList<>();
        pendingValues = new ArrayList<>();
        encoder.reset();
        for (PartitionProgress partition : progress.values()) {
            partition.batchFirst = -1;
        }
        records = 0;
        encodedBytes.set(0);
        tableRecords.clear();
        countedTable = null;
        tableCount = null;
    }

    /** Where one Kafka partition stands: the next offset expected, and the first offset in the open batch. */
    private static final class PartitionProgress {
        final TopicPartition tp;
        long next = -1;
        long batchFirst = -1;

        PartitionProgress(TopicPartition tp) {
            this.tp = tp;
        }
    }
}
