package io.hivesink.batch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.input.RecordInput;
import io.hivesink.input.RecordValue;
import io.hivesink.route.TableRouter;

/**
 * The open batch. Records are taken in {@link #add} on the task thread and encoded in chunks on the task's pool
 * while more arrive, so that most of the encoding is done when the batch closes; what stays buffered is the encoded
 * bytes. Taking a record is: skip it if it was taken before ({@link AssignmentOffsets}), read its value
 * ({@link RecordInput}), route it and count it per table ({@link TableCounts}), and hand it on in a chunk
 * ({@link ChunkSizer}, {@link ChunkQueue}); {@link BatchAssembler} takes the chunks in order as they are encoded
 * (and, when blocks are compressed early, copies their datums into files whose blocks are compressed as they fill),
 * and makes the batch when it closes.
 */
public final class BatchBuffer {

    private final RecordInput input;
    private final TableRouter router;
    private final String batchIdPrefix;
    private final AssignmentOffsets offsets = new AssignmentOffsets();
    private final TableCounts tableCounts = new TableCounts();
    private final ChunkSizer sizer = new ChunkSizer();
    private final ChunkQueue chunks;
    private final BatchAssembler assembler;

    private List<TakenRecord> unchunked = new ArrayList<>();
    private int chunkRecords = ChunkSizer.FIRST_CHUNK_RECORDS;
    /** Consecutive records mostly come from one topic: its table is at hand without a look-up. */
    private String lastTopic;
    private String lastTable;
    private long batchSequence;
    private long records;
    /** Records of the open batch skipped without an error (ignored tombstones). */
    private long skipped;
    private long openedAtMs;
    private long lastRecordAtMs;
    private long lastBatchEncodeMs;

    /**
     * @param input reads each record's value as it is taken (Connect data, or Confluent-framed Avro)
     * @param pool the task's worker pool; chunks are encoded there
     * @param maxChunksInFlight chunks submitted but not yet encoded before {@link #add} waits (bounds the records
     *     held as objects)
     * @param rejectBadRecords true: a record that cannot land is set aside in {@link Batch#rejected()} and the others
     *     go on; false: {@link #add} or {@link #drain} throws its error
     * @param earlyWriters the writer of each table's files: a batch's files are opened with it and their blocks
     *     compressed as they fill ({@link io.hivesink.avro.container.FileBlocks}), so that a batch holds compressed
     *     blocks rather than raw bytes and its files must be written by these writers; null: the datums stay as
     *     encoded until the batch is written, by any writer
     */
    public BatchBuffer(RecordInput input, TableRouter router, TableLayouts layouts, String batchIdPrefix,
            ExecutorService pool, int maxChunksInFlight, boolean rejectBadRecords,
            Function<String, ParallelContainerWriter> earlyWriters) {
        this(input, router, layouts, batchIdPrefix, pool, maxChunksInFlight, rejectBadRecords, earlyWriters,
                LateCheck.NONE);
    }

    /** The same, telling late records by {@code late} ({@code partition.late.policy}). */
    public BatchBuffer(RecordInput input, TableRouter router, TableLayouts layouts, String batchIdPrefix,
            ExecutorService pool, int maxChunksInFlight, boolean rejectBadRecords,
            Function<String, ParallelContainerWriter> earlyWriters, LateCheck late) {
        this.input = input;
        this.router = router;
        this.batchIdPrefix = batchIdPrefix;
        this.assembler = new BatchAssembler(earlyWriters);
        this.chunks = new ChunkQueue(new ChunkEncoder(router, layouts, rejectBadRecords, late), pool,
                maxChunksInFlight, sizer, assembler::take);
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
    public boolean add(SinkRecord record, long nowMs) {
        if (offsets.isTaken(record)) {
            return false;
        }
        if (input.skips(record)) {
            // counted, so that a batch of nothing else still closes and commits the offsets past them
            offsets.take(record);
            opened(nowMs);
            records++;
            skipped++;
            return true;
        }
        RecordValue value = input.read(record);
        offsets.take(record);
        opened(nowMs);
        String table = tableOf(record, value);
        unchunked.add(new TakenRecord(record, value, table));
        if (table != null) {
            tableCounts.count(table);
        }
        records++;
        if (unchunked.size() >= chunkRecords) {
            submitUnchunked();
        }
        return true;
    }

    private void opened(long nowMs) {
        if (records == 0) {
            openedAtMs = nowMs;
        }
        lastRecordAtMs = nowMs;
    }

    /** Whether the record lies past the offset its partition expects next (known once it resumed or took one). */
    public boolean isAhead(SinkRecord record) {
        return offsets.isAhead(record);
    }

    /**
     * When the record just taken was taken: reading it (a schema look-up) and handing it to the encoder (which waits
     * while encoding is behind) may take a while after {@link #add}'s time, and idle time counts from the end.
     */
    public void tookAt(long nowMs) {
        if (records > 0) {
            lastRecordAtMs = Math.max(lastRecordAtMs, nowMs);
        }
    }

    /**
     * Starts encoding the records taken since the last chunk, takes the chunks encoded by now into the batch, and
     * reports a bad record found by then.
     */
    public void submitUnchunked() {
        chunks.takeEncodedSoFar();
        if (unchunked.isEmpty()) {
            return;
        }
        List<TakenRecord> chunk = unchunked;
        chunkRecords = sizer.chunkRecords();
        unchunked = new ArrayList<>(chunkRecords);
        chunks.submit(chunk);
    }

    /**
     * The record's table, routed here on the task thread so that per-table limits count exactly; null if routing
     * fails, in which case the encoder routes it again and reports the error with the record.
     */
    private String tableOf(SinkRecord record, RecordValue value) {
        try {
            if (router.routesByTopic()) {
                if (!record.topic().equals(lastTopic)) {
                    lastTable = router.tableFor(record.topic());
                    lastTopic = record.topic();
                }
                return lastTable;
            }
            return router.tableFor(record, value.routeFields());
        } catch (DataException e) {
            return null;
        }
    }

    /** Records of the open batch routed to {@code table} so far. */
    public long tableRecordCount(String table) {
        return tableCounts.of(table);
    }

    public boolean isEmpty() {
        return records == 0;
    }

    public long recordCount() {
        return records;
    }

    /** Encoded bytes of the records encoded so far (the ones still in flight are not counted yet). */
    public long byteCount() {
        return chunks.encodedBytes();
    }

    /**
     * What the open batch holds in the heap for the records encoded so far: their encoded bytes, less what
     * compressing blocks early saved.
     */
    public long heldBytes() {
        return assembler.heldBytes() + Math.max(0, chunks.encodedBytes() - assembler.takenBytes());
    }

    public long openedAtMs() {
        return openedAtMs;
    }

    /** When the open batch took its latest record. */
    public long lastRecordAtMs() {
        return lastRecordAtMs;
    }

    /**
     * Time the last batch drained took to encode (summed over the encoding threads, while it filled): a step of its
     * commit for the metrics, though most of it overlaps with taking records.
     */
    public long lastBatchEncodeMs() {
        return lastBatchEncodeMs;
    }

    /**
     * Closes the open batch, waiting for its records to be encoded, and starts an empty one. If a chunk cannot be
     * taken the batch stays open and this throws: a retriable failure (the metastore could not admit a table for
     * now) is tried again at the next call, anything else leaves the batch to be dropped ({@link #discard}).
     */
    public Batch drain() {
        submitUnchunked();
        chunks.takeAll();
        lastBatchEncodeMs = chunks.encodeMs();
        Batch batch = assembler.assemble(batchIdPrefix + "-" + (batchSequence + 1), offsets.fromOffsets(),
                offsets.nextOffsets(), offsets.startOffsets(), chunks.encodedBytes(), skipped);
        batchSequence++;
        reset();
        return batch;
    }

    /**
     * Drops the open batch. Its partitions expect again the offsets their stretches started from, so the records
     * re-read from there are taken again.
     *
     * @return per partition that had records in the dropped batch, the offset to re-read it from
     */
    public Map<TopicPartition, Long> discard() {
        Map<TopicPartition, Long> dropped = offsets.dropBatch();
        chunks.awaitQuietly();
        assembler.discard();
        reset();
        return dropped;
    }

    /**
     * Per partition with records in the open batch, where the task started it: its committed offset when it was
     * assigned, or, never committed, the first offset taken since. A partition never committed whose batches are
     * dropped is read again from there.
     */
    public Map<TopicPartition, Long> startOffsets() {
        return offsets.startOffsets();
    }

    /** The partitions are read again from these (committed) offsets: see {@link AssignmentOffsets#resumeAt}. */
    public void resumeAt(Map<TopicPartition, Long> committed) {
        offsets.resumeAt(committed);
    }

    /** Forgets where the given partitions stood (they were revoked or rewound). */
    public void forget(Collection<TopicPartition> partitions) {
        offsets.forget(partitions);
    }

    private void reset() {
        chunks.clear();
        assembler.reset();
        unchunked = new ArrayList<>();
        offsets.endBatch();
        records = 0;
        skipped = 0;
        tableCounts.clear();
    }
}
