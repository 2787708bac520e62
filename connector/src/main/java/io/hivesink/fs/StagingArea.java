package io.hivesink.fs;

import java.io.IOException;
import java.io.OutputStream;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Files are written here, out of every table's sight, made durable, and only then moved into their table's
 * partition directory with a rename.
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

    /** Where a batch's file for one table and partition is staged; the same arguments give the same path. */
    public Path stagedPath(String batchId, String table, String partitionPath, String fileName) {
        Path dir = new Path(new Path(root, batchId), table);
        return new Path(partitionPath.isEmpty() ? dir : new Path(dir, partitionPath), fileName);
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

    /** Whether the staged file was already moved into {@code targetDir} (by an earlier try of the same batch). */
    public boolean isInPlace(Path staged, Path targetDir) throws IOException {
        return fs.exists(new Path(targetDir, staged.getName()));
    }

    /**
     * Moves a staged file into {@code targetDir}; check {@link #isInPlace} first when repeating a batch.
     *
     * @return the file's final path
     */
    public Path moveInto(Path staged, Path targetDir) throws IOException {
        Path target = new Path(targetDir, staged.getName());
        fs.mkdirs(targetDir);
        if (!fs.rename(staged, target)) {
            throw new IOException("Cannot move " + staged + " to " + target
                    + (fs.exists(target) ? ": the target exists" : ""));
        }
        return target;
    }

    /** Removes what is left of a batch's staging directory. */
    public void discard(String batchId) throws IOException {
        fs.delete(new Path(root, batchId), true);
    }
}
