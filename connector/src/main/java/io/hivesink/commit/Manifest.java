package io.hivesink.commit;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kafka.common.TopicPartition;

import io.hivesink.fs.StagingArea;

/**
 * A batch's intent, everything needed to finish its commit without the records: which staged file goes where, the
 * partitions to register and the offsets the batch ends at. Written to the FileSystem (Avro, synced) before the
 * intent is recorded in the metastore, so that whoever finds the intent can roll the batch forward.
 */
public record Manifest(String batchId, List<StagedFile> files, StagedFile ledgerFile,
        Map<TopicPartition, Long> nextOffsets) {

    /** A file as staged and where it ends up; {@code partition} holds the partition's values (empty: none). */
    public record StagedFile(String table, List<String> partition, Path staged, Path target) {
    }

    public Manifest {
        files = List.copyOf(files);
        nextOffsets = Map.copyOf(nextOffsets);
    }

    private static final Schema FILE = SchemaBuilder.record("StagedFile").namespace("io.hivesink.manifest").fields()
            .requiredString("table")
            .name("partition").type().array().items().stringType().noDefault()
            .requiredString("staged")
            .requiredString("target")
            .endRecord();
    private static final Schema OFFSET = SchemaBuilder.record("NextOffset").namespace("io.hivesink.manifest").fields()
            .requiredString("topic")
            .requiredInt("partition")
            .requiredLong("next_offset")
            .endRecord();
    static final Schema SCHEMA = SchemaBuilder.record("Manifest").namespace("io.hivesink.manifest").fields()
            .requiredString("batch_id")
            .name("files").type().array().items(FILE).noDefault()
            .name("ledger_file").type(FILE).noDefault()
            .name("next_offsets").type().array().items(OFFSET).noDefault()
            .endRecord();

    /** Writes the manifest and syncs it, replacing a leftover of an earlier try. */
    public void write(FileSystem fs, Path path) throws IOException {
        GenericRecord record = new GenericData.Record(SCHEMA);
        record.put("batch_id", batchId);
        List<GenericRecord> fileRecords = new ArrayList<>(files.size());
        for (StagedFile file : files) {
            fileRecords.add(toRecord(file));
        }
        record.put("files", fileRecords);
        record.put("ledger_file", toRecord(ledgerFile));
        List<GenericRecord> offsets = new ArrayList<>();
        nextOffsets.entrySet().stream().sorted(Map.Entry.comparingByKey(TaskState.PARTITION_ORDER)).forEach(e -> {
            GenericRecord offset = new GenericData.Record(OFFSET);
            offset.put("topic", e.getKey().topic());
            offset.put("partition", e.getKey().partition());
            offset.put("next_offset", e.getValue());
            offsets.add(offset);
        });
        record.put("next_offsets", offsets);
        StagingArea.writeSynced(fs, path, out -> {
            // not closed: the stream is StagingArea's to close; flush() writes the whole file
            DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<>(SCHEMA));
            writer.setMeta(DurableFormat.MANIFEST.key(), Integer.toString(DurableFormat.CURRENT));
            writer.create(SCHEMA, out);
            writer.append(record);
            writer.flush();
            return 0;
        });
    }

    public static Manifest read(FileSystem fs, Path path) throws IOException {
        try (InputStream in = fs.open(path);
                DataFileStream<GenericRecord> reader = new DataFileStream<>(in, new GenericDatumReader<>(SCHEMA))) {
            DurableFormat.MANIFEST.check(reader.getMetaString(DurableFormat.MANIFEST.key()), path.toString());
            GenericRecord record = reader.next();
            List<StagedFile> files = new ArrayList<>();
            for (Object file : (List<?>) record.get("files")) {
                files.add(fromRecord((GenericRecord) file));
            }
            Map<TopicPartition, Long> offsets = new java.util.HashMap<>();
            for (Object o : (List<?>) record.get("next_offsets")) {
                GenericRecord offset = (GenericRecord) o;
                offsets.put(new TopicPartition(offset.get("topic").toString(), (Integer) offset.get("partition")),
                        (Long) offset.get("next_offset"));
            }
            return new Manifest(record.get("batch_id").toString(), files,
                    fromRecord((GenericRecord) record.get("ledger_file")), offsets);
        }
    }

    private static GenericRecord toRecord(StagedFile file) {
        GenericRecord record = new GenericData.Record(FILE);
        record.put("table", file.table());
        record.put("partition", file.partition());
        record.put("staged", file.staged().toString());
        record.put("target", file.target().toString());
        return record;
    }

    private static StagedFile fromRecord(GenericRecord record) {
        List<String> partition = new ArrayList<>();
        for (Object value : (List<?>) record.get("partition")) {
            partition.add(value.toString());
        }
        return new StagedFile(record.get("table").toString(), partition, new Path(record.get("staged").toString()),
                new Path(record.get("target").toString()));
    }
}
