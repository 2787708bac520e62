package io.hivesink.orc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.orc.ColumnStatistics;
import org.apache.orc.DoubleColumnStatistics;
import org.apache.orc.OrcProto;
import org.apache.orc.Reader;
import org.apache.orc.impl.OrcIndex;
import org.apache.orc.impl.RecordReaderImpl;
import org.apache.orc.storage.ql.io.sarg.PredicateLeaf;
import org.apache.orc.storage.ql.io.sarg.SearchArgument;
import org.apache.orc.storage.ql.io.sarg.SearchArgumentFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.avro.datum.EncodedDatums;

/**
 * A float or double column holding a NaN has no minimum and maximum in a landed or a merged ORC file, where ORC would
 * give it NaN bounds (a NaN first) by which Hive's split generation skips the stripe; other columns keep theirs.
 */
class NanSafeStatisticsTest {

    private static final ExecutorService POOL = Executors.newFixedThreadPool(1);
    private static final Schema SCHEMA = new Schema.Parser().parse("""
            {"type": "record", "name": "Row", "fields": [
              {"name": "f", "type": "float"}, {"name": "d", "type": "double"}, {"name": "g", "type": "float"}]}""");
    /** f: a NaN first, as in the stripe Hive 4.0.1 skipped; d: a NaN later; g: none. */
    private static final float[] F = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 1.5f};
    private static final double[] D = {1.0, 2.0, Double.NaN, 3.0};
    private static final float[] G = {1f, 2f, 3f, 4f};

    @TempDir
    Path dir;

    @AfterAll
    static void shutDown() {
        POOL.shutdownNow();
    }

    @Test
    void aLandedFileGivesNoBoundsToAColumnWithANan() throws Exception {
        assertNanColumnsHaveNoBounds(land("landed.orc"));
    }

    @Test
    void aMergedFileGivesNoBoundsToAColumnWithANan() throws Exception {
        List<org.apache.hadoop.fs.Path> files = List.of(hadoop(land("a.orc")), hadoop(land("b.orc")));
        Path merged = dir.resolve("merged.orc");
        try (OutputStream out = Files.newOutputStream(merged)) {
            new OrcMerge("snappy", 64L << 20).merge(FileSystem.getLocal(new Configuration()), files, out);
        }
        assertNanColumnsHaveNoBounds(merged);
    }

    private void assertNanColumnsHaveNoBounds(Path file) throws Exception {
        try (Reader reader = OrcTestRows.reader(file)) {
            ColumnStatistics[] stripe = reader.getStripeStatistics().get(0).getColumnStatistics();
            ColumnStatistics[] whole = reader.getStatistics();
            for (ColumnStatistics[] statistics : List.of(stripe, whole)) {
                assertFalse(statistics[1] instanceof DoubleColumnStatistics, "f: " + statistics[1]);
                assertFalse(statistics[2] instanceof DoubleColumnStatistics, "d: " + statistics[2]);
                DoubleColumnStatistics g = (DoubleColumnStatistics) statistics[3];
                assertEquals(1.0, g.getMinimum());
                assertEquals(4.0, g.getMaximum());
                assertEquals(reader.getNumberOfRows(), statistics[1].getNumberOfValues(), "the count stays");
            }
            // what Hive's split generation asks of a stripe's statistics: f = Infinity may hold rows
            SearchArgument infinity = SearchArgumentFactory.newBuilder().startAnd()
                    .equals("f", PredicateLeaf.Type.FLOAT, (double) Float.POSITIVE_INFINITY).end().build();
            assertNotEquals(org.apache.orc.storage.ql.io.sarg.SearchArgument.TruthValue.NO,
                    RecordReaderImpl.evaluatePredicate(stripe[1], infinity.getLeaves().get(0), null));
            try (RecordReaderImpl rows = (RecordReaderImpl) reader.rows()) {
                OrcIndex index = rows.readRowIndex(0, null, null);
                OrcProto.RowIndex[] groups = index.getRowGroupIndex();
                assertFalse(groups[1].getEntry(0).getStatistics().hasDoubleStatistics(), "f's row group");
                assertFalse(groups[2].getEntry(0).getStatistics().hasDoubleStatistics(), "d's row group");
                assertTrue(groups[3].getEntry(0).getStatistics().hasDoubleStatistics(), "g's row group");
            }
        }
        List<Map<String, Object>> rows = OrcTestRows.read(file, SCHEMA);
        assertTrue(Float.isNaN(((Number) rows.get(0).get("f")).floatValue()), "the values stay: " + rows);
        assertEquals(Float.POSITIVE_INFINITY, ((Number) rows.get(1).get("f")).floatValue());
    }

    private Path land(String name) throws IOException {
        EncodedDatums datums = new EncodedDatums();
        for (int i = 0; i < F.length; i++) {
            GenericRecord row = new GenericData.Record(SCHEMA);
            row.put("f", F[i]);
            row.put("d", D[i]);
            row.put("g", G[i]);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
            new GenericDatumWriter<GenericRecord>(SCHEMA).write(row, encoder);
            encoder.flush();
            datums.add(bytes.toByteArray(), 0, bytes.size());
        }
        Path file = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(file)) {
            new ParallelOrcWriter(POOL, 1, "snappy", 1 << 20, Map.of()).write(SCHEMA, SCHEMA, datums, out);
        }
        return file;
    }

    private static org.apache.hadoop.fs.Path hadoop(Path file) {
        return new org.apache.hadoop.fs.Path(file.toUri());
    }
}
