package io.hivesink.fs;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.AccessDeniedException;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.s3a.UnknownStoreException;
import org.apache.hadoop.security.AccessControlException;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's staging directory: a batch's files are written here, out of every table's sight, under names that
 * depend only on the batch, table, partition and file number; made durable; and only then moved into their
 * partition directories: renamed on HDFS, their uploads completed on S3 (a {@link Mover} of each kind).
 */
public final class StagingArea {

    private static final Logger log = LoggerFactory.getLogger(StagingArea.class);

    /** Writes a file's content to a stream and returns the bytes written. */
    @FunctionalInterface
    public interface Content {
        long writeTo(OutputStream out) throws IOException;
    }

    /** The name of a batch's manifest in its staging directory. */
    static final String MANIFEST_NAME = "_manifest.avro";
    /**
     * The start-up probe's name in the staging directory ({@link Mover#probe}). The same at every start of the task, so
     * that the file a start killed inside its probe leaves is removed by the next start (on HDFS at once, even while
     * the killed client's lease on it lasts).
     */
    static final String PROBE_NAME = "_probe";
    /** The probe's names before they were fixed: {@code _probe-<random UUID>}, left by a start killed inside it. */
    private static final Pattern EARLIER_PROBE =
            Pattern.compile("_probe-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private final FileSystem fs;
    private final Path root;
    private final Mover mover;

    public StagingArea(FileSystem fs, Path root) {
        this(fs, root, completesUploads(fs) ? new MultipartMover(fs) : new RenameMover(fs));
    }

    private StagingArea(FileSystem fs, Path root, Mover mover) {
        this.fs = fs;
        this.root = root;
        this.mover = mover;
    }

    /**
     * A staging area that moves by rename whatever the store. The connector never uses it on S3, where S3A renames by
     * copying every byte; the S3 commit benchmark does, as the baseline that completing uploads is measured against.
     */
    public static StagingArea renaming(FileSystem fs, Path root) {
        return new StagingArea(fs, root, new RenameMover(fs));
    }

    /** Whether files are staged as multipart uploads and moved by completing them (S3), not by rename. */
    public static boolean completesUploads(FileSystem fs) {
        return "s3a".equals(fs.getScheme());
    }

    public FileSystem fileSystem() {
        return fs;
    }

    /**
     * Creates the staging directory, or finds it there, before anything else is written: a principal that may not
     * write the warehouse learns so when the task starts, in words that say who was refused where.
     *
     * @throws StorageUnavailableException if HDFS cannot be written for now (down, restarting, in safe mode)
     *
     * @param who the identity the task runs as, for the message
     */
    public void prepare(String who) {
        try {
            fs.mkdirs(root);
            probeWrite();
        } catch (AccessControlException e) {
            throw new ConnectException("HDFS refused to let the task, running as " + who + ", create its staging "
                    + "directory " + root + ": " + firstLine(e.getMessage()) + ". The task's principal needs write "
                    + "and execute permission on warehouse.dir and staging.dir (and execute on their parents); "
                    + "grant it, or point warehouse.dir at a directory it owns.", e);
        } catch (UnknownStoreException e) {
            URI where = fs.makeQualified(root).toUri();
            throw new ConnectException("The bucket " + where.getHost() + " does not exist, or the S3 endpoint ("
                    + endpoint() + ") does not serve it: " + firstLine(e.getMessage()) + ". Create the bucket, or "
                    + "correct fs.url (s3a://<bucket>) and s3.endpoint.", e);
        } catch (AccessDeniedException e) {
            URI where = fs.makeQualified(root).toUri();
            throw new ConnectException("S3 refused the task's requests on bucket " + where.getHost() + ", key prefix "
                    + where.getPath().substring(1) + "/ (the staging directory): " + firstLine(e.getMessage())
                    + ". Check s3.access.key and s3.secret.key (or s3.credentials.provider, and the credentials it "
                    + "finds), and that they may s3:ListBucket and s3:ListBucketMultipartUploads on the bucket and "
                    + "s3:GetObject, s3:PutObject, s3:DeleteObject and s3:AbortMultipartUpload on the keys under "
                    + "warehouse.dir and staging.dir (docs/s3.md has the policy).", e);
        } catch (IOException e) {
            // down, restarting, in safe mode: the task waits for it (a refusal of permission is above)
            throw new StorageUnavailableException("Cannot create the staging directory " + root + " as " + who
                    + ": " + firstLine(e.getMessage()) + ". Check fs.url, staging.dir and that HDFS is up and out of "
                    + "safe mode.", e);
        }
    }

    /**
     * Whether a name in the staging directory is a probe's that a crash left, not a batch's: a batch id starts with the
     * connector's name, which may start with {@code _probe} too.
     */
    static boolean isProbe(String name) {
        return name.equals(PROBE_NAME) || name.equals(MultipartMover.PROBE_UPLOAD)
                || EARLIER_PROBE.matcher(name).matches();
    }

    /** Does in the staging directory, on a probe, what staging and moving a file do ({@link Mover#probe}). */
    private void probeWrite() throws IOException {
        mover.probe(new Path(root, PROBE_NAME));
    }

    private String endpoint() {
        String endpoint = fs.getConf().getTrimmed("fs.s3a.endpoint", "");
        return endpoint.isEmpty() ? "AWS S3" : endpoint;
    }

    private static String firstLine(String text) {
        int end = text == null ? -1 : text.indexOf('\n');
        return end < 0 ? String.valueOf(text) : text.substring(0, end);
    }

    /** Where a batch's file for one table and partition is staged; the same arguments give the same path. */
    public Path stagedPath(String batchId, String table, String partitionPath, String fileName) {
        Path dir = new Path(batchDir(batchId), table);
        return new Path(partitionPath.isEmpty() ? dir : new Path(dir, partitionPath), fileName);
    }

    public Path manifestPath(String batchId) {
        return new Path(batchDir(batchId), MANIFEST_NAME);
    }

    private Path batchDir(String batchId) {
        return new Path(root, batchId);
    }

    /**
     * Stages a file bound for {@code target}: written and synced to the datanodes' disks at {@code staged} (replacing
     * a leftover of an earlier try), or, on S3, uploaded to {@code target} without completing the upload.
     */
    public long write(Path staged, Path target, Content content) throws IOException {
        return mover.write(staged, target, content);
    }

    /**
     * Writes a file of any FileSystem (replacing a leftover of an earlier try) and syncs it. Not try-with-resources:
     * an HDFS stream whose pipeline failed throws the same exception instance again on close, which cannot be added
     * to itself as suppressed; the IllegalArgumentException that follows would hide the retriable IOException.
     */
    public static long writeSynced(FileSystem fs, Path path, Content content) throws IOException {
        FSDataOutputStream out = fs.create(path, true);
        long bytes;
        try {
            bytes = content.writeTo(out);
            if (out.hasCapability(StreamCapabilities.HSYNC)) {
                out.hsync(); // HDFS: on the datanodes' disks; S3 makes an object durable when it is closed
            }
        } catch (IOException | RuntimeException e) {
            try {
                out.close();
            } catch (IOException | RuntimeException onClose) {
                if (onClose != e) {
                    e.addSuppressed(onClose);
                }
            }
            throw e;
        }
        out.close();
        return bytes;
    }

    /**
     * Moves a staged file to its final path, whose directory must exist: renamed, or its upload completed. Repeating
     * a move that happened already is a no-op, so a batch can be rolled forward by whoever finds it unfinished.
     *
     * @return false if the file was already in place
     */
    public boolean move(Path staged, Path target) throws IOException {
        return mover.move(staged, target);
    }

    /**
     * A batch's files are all at their targets: anything the store holds beyond them is given up ({@link Mover#moved}).
     * Best effort: a failure is logged, and costs an upload left open, never a record.
     */
    public void moved(Collection<Path> targets) {
        try {
            mover.moved(targets);
        } catch (IOException | RuntimeException e) {
            log.warn("Could not look for uploads left open beside the files just moved ({}); a bucket lifecycle rule "
                    + "that aborts incomplete uploads removes any", e.toString());
        }
    }

    /** Removes what is left of a batch's staging directory. */
    public void discard(String batchId) throws IOException {
        if (!mover.abandon(batchDir(batchId))) {
            throw new IOException("Some staged files of batch " + batchId + " could not be given up (their uploads "
                    + "aborted); its staging directory is kept, to try again");
        }
        fs.delete(batchDir(batchId), true);
    }

    /** The uploads this task started and has not completed nor aborted yet (S3 only: 0 elsewhere). */
    public int openUploads() {
        return mover.openUploads();
    }

    /**
     * The batches staged in this task's directory, each with whether its manifest was written. Lists this task's
     * directory only, and looks for each batch's manifest.
     */
    public Map<String, Boolean> stagedBatches() throws IOException {
        Map<String, Boolean> batches = new TreeMap<>();
        if (!fs.exists(root)) {
            return batches;
        }
        for (FileStatus batch : fs.listStatus(root)) {
            String id = batch.getPath().getName();
            if (!isProbe(id)) {
                batches.put(id, batch.isDirectory() && fs.exists(manifestPath(id)));
            }
        }
        return batches;
    }
}
