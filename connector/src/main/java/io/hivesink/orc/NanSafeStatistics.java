package io.hivesink.orc;

import java.io.IOException;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.orc.OrcFile;
import org.apache.orc.OrcProto;
import org.apache.orc.impl.PhysicalFsWriter;
import org.apache.orc.impl.StreamName;
import org.apache.orc.impl.writer.WriterEncryptionVariant;

/**
 * Writes an ORC file as ORC does, but gives a float or double column no minimum and maximum wherever its values
 * include a NaN (in a row group's index entry, a stripe's statistics, the file's), so that no reader skips rows by
 * them.
 *
 * <p>Why: ORC's statistics compare each value with the minimum and maximum so far, and a NaN compares false with
 * everything: a NaN first in a stripe makes its minimum and maximum NaN for good, and a NaN later is left out of
 * them. ORC 1.7 and later readers check the sum (NaN) before they use an index entry (ORC-629), but the stripe and
 * file statistics are also read through ORC's public {@code RecordReaderImpl.evaluatePredicate}, which does not:
 * Hive 4.0.1's split generation skipped a stripe of [NaN, Infinity, -Infinity, ...] for {@code f = Infinity} and
 * {@code f < 0.0}, and Hive 3.1 (ORC 1.5) skips by the index entries too. Statistics without their double part are
 * what every reader takes as "may hold anything"; columns without a NaN keep theirs. The sum is NaN also where
 * infinities of both signs meet, and such statistics go too: a little pruning lost, never a row.
 */
final class NanSafeStatistics extends PhysicalFsWriter {

    private static final WriterEncryptionVariant[] NO_ENCRYPTION = new WriterEncryptionVariant[0];

    NanSafeStatistics(FSDataOutputStream out, OrcFile.WriterOptions options) throws IOException {
        super(out, options, NO_ENCRYPTION);
    }

    @Override
    public void writeStatistics(StreamName name, OrcProto.ColumnStatistics.Builder statistics) {
        super.writeStatistics(name, safe(statistics));
    }

    @Override
    public void writeIndex(StreamName name, OrcProto.RowIndex.Builder index) throws IOException {
        for (int entry = 0; entry < index.getEntryCount(); entry++) {
            OrcProto.RowIndexEntry.Builder builder = index.getEntryBuilder(entry);
            if (builder.hasStatistics()) {
                safe(builder.getStatisticsBuilder());
            }
        }
        super.writeIndex(name, index);
    }

    /** The statistics, without their minimum, maximum and sum if the values they count include a NaN. */
    static OrcProto.ColumnStatistics.Builder safe(OrcProto.ColumnStatistics.Builder statistics) {
        if (statistics.hasDoubleStatistics()) {
            OrcProto.DoubleStatistics doubles = statistics.getDoubleStatistics();
            if (Double.isNaN(doubles.getSum()) || Double.isNaN(doubles.getMinimum())
                    || Double.isNaN(doubles.getMaximum())) {
                statistics.clearDoubleStatistics();
            }
        }
        return statistics;
    }
}
