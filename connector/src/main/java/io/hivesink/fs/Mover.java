package io.hivesink.fs;

import java.io.IOException;
import java.util.Collection;

import org.apache.hadoop.fs.Path;

/**
 * How a staged file comes to be at its target: written somewhere no table reads, then made visible there by a step
 * that can be repeated (a roll-forward repeats it after a crash). {@link RenameMover} renames (HDFS and any
 * FileSystem whose rename is atomic); {@link MultipartMover} completes a multipart upload (S3, whose rename copies).
 */
interface Mover {

    /** Writes the file's content so that {@link #move} can make it the target; returns the content's bytes. */
    long write(Path staged, Path target, StagingArea.Content content) throws IOException;

    /**
     * Makes the staged file the target. Repeating a move that happened already is a no-op.
     *
     * @return false if the file was already in place
     */
    boolean move(Path staged, Path target) throws IOException;

    /**
     * Checks, when the task starts, that the store grants what {@link #write}, {@link #move} and {@link #abandon} need,
     * by doing what they do at {@code probe}, a path of the staging directory that holds no batch (replacing what a
     * start killed inside its probe left there), and leaving nothing there.
     */
    void probe(Path probe) throws IOException;

    /**
     * Gives up what the staged files under {@code dir} hold beyond the files themselves, before they are deleted.
     *
     * @return false if some of it could not be given up now: keep the files, for the next discard to try again
     */
    boolean abandon(Path dir) throws IOException;

    /**
     * A batch's files were all moved to these targets: what the store still holds for them beyond the files (a second
     * upload of a target's key, started by a client that sent its request again) is given up.
     */
    default void moved(Collection<Path> targets) throws IOException {
    }

    /** The uploads this mover started and has not completed nor aborted yet: none where staging is a file. */
    default int openUploads() {
        return 0;
    }
}
