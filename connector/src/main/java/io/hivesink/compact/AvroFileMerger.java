package io.hivesink.compact;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;

import io.hivesink.avro.container.ContainerBlocks;
import io.hivesink.avro.container.ContainerMerge;

/**
 * Merges Avro container files by copying their compressed blocks ({@link ContainerMerge}): files of one writer's
 * schema and codec make one kind, so a table whose schema evolved merges each schema's files apart, and readers
 * resolve each merged file's schema against the table's as they did the files it replaces.
 */
public final class AvroFileMerger implements FileMerger {

    @Override
    public String extension() {
        return ".avro";
    }

    @Override
    public String kindOf(FileSystem fs, FileStatus file) throws IOException {
        try (ContainerBlocks blocks = new ContainerBlocks(fs.open(file.getPath()), file.getPath().toString())) {
            return ContainerMerge.kindOf(blocks);
        }
    }

    @Override
    public Merged merge(FileSystem fs, List<FileStatus> files, OutputStream out) throws IOException {
        ContainerMerge merge = new ContainerMerge(out);
        for (FileStatus file : files) {
            String name = file.getPath().toString();
            try (ContainerBlocks blocks = new ContainerBlocks(fs.open(file.getPath()), name)) {
                merge.add(blocks, name);
            }
        }
        ContainerMerge.Merged merged = merge.finish();
        return new Merged(merged.records(), merged.bytes());
    }
}
