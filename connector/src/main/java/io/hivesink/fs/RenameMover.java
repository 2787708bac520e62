package io.hivesink.fs;

import java.io.FileNotFoundException;
import java.io.IOException;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Stages a file as a file of the staging directory and moves it by rename: one atomic step on HDFS. */
final class RenameMover implements Mover {

    private final FileSystem fs;

    RenameMover(FileSystem fs) {
        this.fs = fs;
    }

    @Override
    public long write(Path staged, Path target, StagingArea.Content content) throws IOException {
        return StagingArea.writeSynced(fs, staged, content);
    }

    @Override
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

    /**
     * Writes and removes the probe: creating a directory that exists checks no right to write in it. A probe file a
     * killed start left goes first: overwriting it would take a right on the file, which a start under another
     * principal may lack, where removing it takes the directory's only.
     */
    @Override
    public void probe(Path probe) throws IOException {
        fs.delete(probe, false);
        fs.create(probe, true).close();
        fs.delete(probe, false);
    }

    @Override
    public boolean abandon(Path dir) {
        return true; // a staged file is all there is
    }
}
