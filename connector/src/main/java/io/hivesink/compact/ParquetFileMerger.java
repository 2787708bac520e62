package io.hivesink.compact;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.InputFile;

import io.hivesink.parquet.ParquetMerge;

/**
 * Merges Parquet files by encoding their values again into full row groups ({@link ParquetMerge}): files of one
 * schema make one kind, so a table whose columns changed merges each schema's files apart, and readers take each
 * merged file's columns as they took those of the files it replaces.
 */
public final class ParquetFileMerger implements FileMerger {

    private final ParquetMerge merge;

    public ParquetFileMerger(ParquetMerge merge) {
        this.merge = merge;
    }

    @Override
    public String extension() {
        return ".parquet";
    }

    @Override
    public String kindOf(FileSystem fs, FileStatus file) throws IOException {
        return ParquetMerge.kindOf(HadoopInputFile.fromStatus(file, fs.getConf()));
    }

    @Override
    public Merged merge(FileSystem fs, List<FileStatus> files, OutputStream out) throws IOException {
        List<InputFile> inputs = new ArrayList<>(files.size());
        for (FileStatus file : files) {
            inputs.add(HadoopInputFile.fromStatus(file, fs.getConf()));
        }
        ParquetMerge.Merged merged = merge.merge(inputs, out);
        return new Merged(merged.records(), merged.bytes());
    }
}
