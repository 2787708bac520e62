package io.hivesink.fs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Set;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * One task's staging directory: a batch's files are written here, out of every table's sight, under names that
 * depend only on the batch, table, partition and file number; made durable; and only then renamed into their
 * partition directories.
 */
public final class StagingArea {

    /** Writes a file's content to a stream and returns the bytes written. */
    @FunctionalInterface
    public interface Content {
        long writeTo(OutputStream out) throws IOException;
    }

    private final FileSystem fs;
    private final Path root;

    public StagingArea(FileSystem fs, Path root) {
        this.fs = fs;
        this.root = root;
    }

    public FileSystem fileSystem() {
        return fs;
    }

    /** Where a batch's file for one table and partition is staged; the same arguments give the same path. */
    public Path stagedPath(String batchId, String table, String partitionPath, String fileName) {
        Path dir = new Path(batchDir(batchId), table);
        return new Path(partitionPath.isEmpty() ? dir : new Path(dir, partitionPath), fileName);
    }

    public Path manifestPath(String batchId) {
        return new Path(batchDir(batchId), "_manifest.avro");
    }

    private Path batchDir(String batchId) {
        return new Path(root, batchId);
    }

    /** Writes the file (replacing a leftover of an earlier try) and syncs it to the datanodes' disks. */
    public long write(Path path, Content content) throws IOException {
        long bytes;
        try (FSDataOutputStream out = fs.create(path, true)) {
            bytes = content.writeTo(out);
            out.hsync();
        }
        return bytes;
    }

    /**
     * Moves a staged file to its final path, whose directory must exist. Repeating a move that happened already
     * is a no-op, so a batch can be rolled forward by whoever finds it unfinished.
     *
     * @return false if the file was already in place
     */
    public boolean move(Path staged, Path target) throws IOException {
        try {
            if (fs.rename(staged, target)) {
                return true;
            }
        } catch (FileNotFoundException e) {
            // some FileSystems (the local one) throw where HDFS returns false; either way, look at what is there
        }
        boolean stagedExists = fs.exists(staged);
        boolean targetExists = fs.exists(target);
        if (!stagedExists && targetExists) {
            return false;
        }
        throw new IOException("Cannot move " + staged + " to " + target
                + (stagedExists ? "" : ": the staged file is gone") + (targetExists ? ": the target exists" : ""));
    }

    /** Removes what is left of a batch's staging directory. */
    public void discard(String batchId) throws IOException {
        fs.delete(batchDir(batchId), true);
    }

    /**
     * Removes every staged batch but the given ones: the leftovers of batches abandoned before their intent was
     * durable, or finished while their directory was still being removed. Lists this task's directory only.
     *
     * @return the batches removed
     */
    public int discardAllExcept(Set<String> keep) throws IOException {
        if (!fs.exists(root)) {
            return 0;
        }
        int removed = 0;
        for (FileStatus batch : fs.listStatus(root)) {
            if (!keep.contains(batch.getPath().getName())) {
                fs.delete(batch.getPath(), true);
                removed++;
            }
        }
        return removed;
    }
}
