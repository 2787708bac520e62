package io.hivesink.compact;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import io.hivesink.table.DataFileName;

/**
 * A partition's files as one listing found them: the connector's data files in batch order (by the time each was
 * written, then by name: a task's batches are written one after another, and files of different tasks have no order
 * a reader could tell), and the names of any other files. Hidden files ({@code _SUCCESS}, {@code .crc}, names
 * starting with {@code _} or {@code .}) are no one's data: readers skip them, and so does a compaction.
 *
 * @param files   the connector's data files, oldest first
 * @param foreign names of the files the connector did not write (a compaction leaves such a partition alone)
 */
public record PartitionFiles(Path location, List<FileStatus> files, List<String> foreign) {

    private static final Comparator<FileStatus> BATCH_ORDER = Comparator.comparingLong(FileStatus::getModificationTime)
            .thenComparing(file -> file.getPath().getName());

    public PartitionFiles {
        files = List.copyOf(files);
        foreign = List.copyOf(foreign);
    }

    /** Lists a partition's directory (not its subdirectories: readers do not read them). */
    public static PartitionFiles list(FileSystem fs, Path location) throws IOException {
        List<FileStatus> files = new ArrayList<>();
        List<String> foreign = new ArrayList<>();
        for (FileStatus status : fs.listStatus(location)) {
            String name = status.getPath().getName();
            if (name.startsWith("_") || name.startsWith(".")) {
                continue;
            }
            if (status.isFile() && DataFileName.batchOf(name).isPresent()) {
                files.add(status);
            } else {
                foreign.add(name);
            }
        }
        files.sort(BATCH_ORDER);
        return new PartitionFiles(location, files, foreign);
    }

    /** The batch (or compaction) a data file of this listing comes from. */
    public static String batchOf(FileStatus file) {
        Optional<String> batch = DataFileName.batchOf(file.getPath().getName());
        return batch.orElseThrow(() -> new IllegalArgumentException(file.getPath() + " is not a data file"));
    }
}
