package io.hivesink.compact;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;

/**
 * The format seam of a compaction: how a format's files are grouped (files of one kind merge into one file) and
 * merged. The Avro merger copies blocks ({@link AvroFileMerger}); Parquet and ORC re-encode ({@link ParquetFileMerger},
 * {@link OrcFileMerger}).
 */
public interface FileMerger {

    /** The format's data file extension, with its dot: the merged files' names end with it. */
    String extension();

    /** What files must share to be merged into one: a key to group them by. */
    String kindOf(FileSystem fs, FileStatus file) throws IOException;

    /**
     * Writes the files, in the order given, as one file to {@code out} (flushed, not closed).
     *
     * @return the records and bytes of the merged file
     */
    Merged merge(FileSystem fs, List<FileStatus> files, OutputStream out) throws IOException;

    /** A merged file: its records and bytes. */
    record Merged(long records, long bytes) {
    }
}
