package io.hivesink.compact;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;

import io.hivesink.orc.OrcMerge;

/**
 * Merges ORC files by writing their rows again into full stripes ({@link OrcMerge}): files of one schema make one
 * kind, so a table whose columns changed merges each schema's files apart.
 */
public final class OrcFileMerger implements FileMerger {

    private final OrcMerge merge;

    public OrcFileMerger(OrcMerge merge) {
        this.merge = merge;
    }

    @Override
    public String extension() {
        return ".orc";
    }

    @Override
    public String kindOf(FileSystem fs, FileStatus file) throws IOException {
        return OrcMerge.kindOf(fs, file.getPath());
    }

    @Override
    public Merged merge(FileSystem fs, List<FileStatus> files, OutputStream out) throws IOException {
        OrcMerge.Merged merged = merge.merge(fs, files.stream().map(FileStatus::getPath).toList(), out);
        return new Merged(merged.records(), merged.bytes());
    }
}
