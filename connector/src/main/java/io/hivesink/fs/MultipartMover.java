package io.hivesink.fs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.AccessDeniedException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.MultipartUploader;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.UploadHandle;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Stages a file as a multipart upload to its target, left uncompleted, and moves it by completing the upload: on S3
 * an uncompleted upload is invisible, and completing it is one request whatever the file's size, where a rename
 * copies every byte. The staged path holds the {@link UploadRecord} that completes it. Through Hadoop's
 * {@link MultipartUploader}, so that the handles are S3A's own.
 *
 * <p>A move is repeatable: an upload completed before (by a run that crashed before removing its record) completes
 * again or is recognised by its target, there at the recorded length. A file given up (its batch discarded before
 * its intent, or staged again by a retry) has every upload of its key aborted, found by listing the uploads of that
 * exact key: the record names the key before the upload starts, so a crash anywhere in between leaves nothing that
 * is not found. Targets are unique to their batch, so no other writer's upload shares the key.
 */
final class MultipartMover implements Mover {

    private static final Logger log = LoggerFactory.getLogger(MultipartMover.class);
    /** S3's least part but the last is 5 MiB; 8 MiB parts keep a 1 GiB file within S3's 10,000 parts. */
    static final int PART_BYTES = 8 << 20;
    /** Pages of 1,000 open uploads looked through after a batch's moves, at most: the commit waits on them. */
    static final int MAX_LISTED_PAGES = 10;
    /** The key of the start-up probe's upload, in the task's staging directory. */
    static final String PROBE_UPLOAD = "_probe-upload";
    /** What to do about a batch whose staged upload is lost. */
    private static final String LOST_FIX = "The batch's other files may be in its tables already, and its records "
            + "cannot be completed from the store: the task stops rather than land part of the batch. Give incomplete "
            + "uploads longer than any outage of the connector before they expire (docs/s3.md says what it takes to "
            + "put such a batch back).";

    private final FileSystem fs;
    private final int partBytes;
    /** The targets of the uploads this mover started and has not completed nor aborted yet. */
    private final Set<String> open = ConcurrentHashMap.newKeySet();

    MultipartMover(FileSystem fs) {
        this(fs, PART_BYTES);
    }

    MultipartMover(FileSystem fs, int partBytes) {
        this.fs = fs;
        this.partBytes = partBytes;
    }

    @Override
    public long write(Path staged, Path target, StagingArea.Content content) throws IOException {
        if (fs.exists(staged)) {
            abortUploadsOf(target); // staged again (a retry of the batch): what the earlier try uploaded goes
        }
        writeRecord(staged, UploadRecord.starting(target));
        try (MultipartUploader uploader = uploader(target)) {
            UploadHandle upload = await(uploader.startUpload(target));
            open.add(target.toString());
            PartUploadStream out = new PartUploadStream(uploader, upload, target, partBytes);
            long bytes;
            try {
                bytes = content.writeTo(out);
                out.close();
                writeRecord(staged, new UploadRecord(target, upload, out.parts(), out.length()));
            } catch (IOException | RuntimeException e) {
                abortQuietly(uploader, upload, target, e);
                open.remove(target.toString());
                throw e;
            }
            return bytes;
        }
    }

    @Override
    public boolean move(Path staged, Path target) throws IOException {
        if (!fs.exists(staged)) {
            if (fs.exists(target)) {
                return false;
            }
            throw new StagedUploadLostException("Cannot complete the upload of " + target + ": its record " + staged
                    + " is gone and the object is not there. " + LOST_FIX, null);
        }
        UploadRecord record = readRecord(staged);
        if (!record.whole()) {
            throw new StagedUploadLostException("Cannot complete the upload of " + target + ": its record " + staged
                    + " says its parts were never all uploaded, yet its batch's intent is durable. " + LOST_FIX,
                    null);
        }
        boolean completedNow = true;
        try (MultipartUploader uploader = uploader(target)) {
            await(uploader.complete(record.upload(), target, record.parts()));
        } catch (IOException e) {
            FileStatus there = statusOrNull(target);
            if (there == null && e instanceof FileNotFoundException) {
                there = statusAfterAPause(target); // another run's completion of the same upload, landing now
            }
            if (there == null && e instanceof FileNotFoundException) {
                throw new StagedUploadLostException("The upload of " + target + " is gone from the store and the "
                        + "object is not there: something aborted it after its batch's intent was durable (a bucket "
                        + "lifecycle rule that aborts incomplete uploads, MinIO's stale upload expiry, "
                        + "fs.s3a.multipart.purge, or a client deleting the directory with "
                        + "fs.s3a.directory.operations.purge.uploads). " + LOST_FIX, e);
            }
            if (there == null || there.getLen() != record.length()) {
                throw e;
            }
            completedNow = false; // completed by an earlier try, which stopped before removing the record
        }
        open.remove(target.toString());
        fs.delete(staged, false);
        return completedNow;
    }

    @Override
    public boolean abandon(Path dir) throws IOException {
        if (!fs.exists(dir)) {
            return true;
        }
        boolean all = true;
        RemoteIterator<LocatedFileStatus> files = fs.listFiles(dir, true);
        while (files.hasNext()) {
            Path staged = files.next().getPath();
            if (staged.getName().equals(StagingArea.MANIFEST_NAME)) {
                continue;
            }
            try {
                abortUploadsOf(readRecord(staged).target());
            } catch (FileNotFoundException e) {
                // removed since the listing: a discard running twice
            } catch (IOException | RuntimeException e) {
                all = false; // the others still go; this one is tried again at the next discard
                log.warn("Could not abort the upload staged at {}; it is tried again at the next recovery: {}",
                        staged, e.toString());
            }
        }
        return all;
    }

    @Override
    public int openUploads() {
        return open.size();
    }

    /**
     * Writes and removes a probe object, then starts an upload and aborts it as a discard does (listing the key's
     * uploads): each request staging, moving and discarding send, so that a bucket policy lacking one of their rights
     * fails the task at start, not at its first retry. The upload's key is the same at every start ({@value
     * #PROBE_UPLOAD} beside the probe), so that one a crash left open is aborted by the next start.
     */
    @Override
    public void probe(Path probe) throws IOException {
        StagingArea.writeSynced(fs, probe, out -> 0);
        fs.delete(probe, false);
        Path upload = new Path(probe.getParent(), PROBE_UPLOAD);
        try (MultipartUploader uploader = uploader(upload)) {
            await(uploader.startUpload(upload));
        }
        abortUploadsOf(upload);
    }

    /**
     * Aborts every upload still open on a key just completed: S3A sends a {@code CreateMultipartUpload} again when its
     * answer is lost, and the upload the first one started is then recorded nowhere. One listing per batch (per 1,000
     * open uploads), under the longest prefix the targets' keys share.
     */
    @Override
    public void moved(Collection<Path> targets) throws IOException {
        if (targets.isEmpty()) {
            return;
        }
        S3AFileSystem s3a = (S3AFileSystem) fs;
        Set<String> keys = new HashSet<>();
        for (Path target : targets) {
            keys.add(s3a.pathToKey(fs.makeQualified(target)));
        }
        String prefix = commonPrefix(keys);
        String bucket = s3a.getBucket();
        S3Client client = s3a.getS3AInternals().getAmazonS3Client("abort uploads left open beside moved files");
        try {
            String keyMarker = null;
            String uploadIdMarker = null;
            int pages = 0;
            while (true) {
                String keyFrom = keyMarker;
                String uploadFrom = uploadIdMarker;
                ListMultipartUploadsResponse page = client.listMultipartUploads(b -> b.bucket(bucket).prefix(prefix)
                        .keyMarker(keyFrom).uploadIdMarker(uploadFrom));
                for (MultipartUpload upload : page.uploads()) {
                    if (keys.contains(upload.key())) {
                        log.info("Aborting upload {} of {}, left open beside the completed one (a create sent again)",
                                upload.uploadId(), upload.key());
                        abortUpload(client, bucket, upload);
                    }
                }
                if (!Boolean.TRUE.equals(page.isTruncated()) || ++pages == MAX_LISTED_PAGES
                        || (Objects.equals(keyMarker, page.nextKeyMarker())
                                && Objects.equals(uploadIdMarker, page.nextUploadIdMarker()))) {
                    return; // the end, or a store that does not move on: what is left waits for the lifecycle rule
                }
                keyMarker = page.nextKeyMarker();
                uploadIdMarker = page.nextUploadIdMarker();
            }
        } catch (SdkException e) {
            throw new IOException("Cannot list the uploads under " + prefix + ": " + e.getMessage(), e);
        }
    }

    static String commonPrefix(Collection<String> keys) {
        String prefix = null;
        for (String key : keys) {
            if (prefix == null) {
                prefix = key;
            } else {
                int i = 0;
                while (i < prefix.length() && i < key.length() && prefix.charAt(i) == key.charAt(i)) {
                    i++;
                }
                prefix = prefix.substring(0, i);
            }
        }
        return prefix == null ? "" : prefix;
    }

    /** Aborts every upload of the target's key: an upload is listed by its key, and no other writer shares it. */
    private void abortUploadsOf(Path target) throws IOException {
        S3AFileSystem s3a = (S3AFileSystem) fs;
        String key = s3a.pathToKey(fs.makeQualified(target));
        S3Client client = s3a.getS3AInternals().getAmazonS3Client("abort the uploads of a discarded staged file");
        try {
            abortUploadsOf(client, s3a.getBucket(), key);
            open.remove(target.toString());
        } catch (S3Exception e) {
            if (e.statusCode() == 403) { // as S3A says it, so that the task's start names the rights to grant
                throw (IOException) new AccessDeniedException(key, null, e.getMessage()).initCause(e);
            }
            throw new IOException("Cannot abort the uploads of " + target + ": " + e.getMessage(), e);
        } catch (SdkException e) {
            throw new IOException("Cannot abort the uploads of " + target + ": " + e.getMessage(), e);
        }
    }

    /**
     * Aborts every upload of exactly {@code key}. One found gone is skipped, not taken for the end of the list: the
     * SDK retries an abort whose answer was lost and then hears that the upload does not exist.
     */
    static void abortUploadsOf(S3Client client, String bucket, String key) {
        for (MultipartUpload upload : client.listMultipartUploads(b -> b.bucket(bucket).prefix(key)).uploads()) {
            if (upload.key().equals(key)) {
                abortUpload(client, bucket, upload);
            }
        }
    }

    /** Aborts the upload; one already gone (aborted meanwhile, or an abort the SDK sent again) is no error. */
    private static void abortUpload(S3Client client, String bucket, MultipartUpload upload) {
        try {
            client.abortMultipartUpload(b -> b.bucket(bucket).key(upload.key()).uploadId(upload.uploadId()));
        } catch (NoSuchUploadException e) {
            // aborted meanwhile
        }
    }

    private MultipartUploader uploader(Path target) throws IOException {
        return fs.createMultipartUploader(target.getParent()).build();
    }

    private void writeRecord(Path staged, UploadRecord record) throws IOException {
        byte[] bytes = record.toBytes();
        StagingArea.writeSynced(fs, staged, out -> {
            out.write(bytes);
            return bytes.length;
        });
    }

    private UploadRecord readRecord(Path staged) throws IOException {
        try (var in = fs.open(staged)) {
            return UploadRecord.fromBytes(in.readAllBytes(), staged);
        }
    }

    private FileStatus statusAfterAPause(Path path) throws IOException {
        try {
            Thread.sleep(1_000);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while looking for " + path);
        }
        return statusOrNull(path);
    }

    private FileStatus statusOrNull(Path path) throws IOException {
        try {
            return fs.getFileStatus(path);
        } catch (FileNotFoundException e) {
            return null;
        }
    }

    private static void abortQuietly(MultipartUploader uploader, UploadHandle upload, Path target, Exception why) {
        try {
            await(uploader.abort(upload, target));
        } catch (IOException | RuntimeException e) {
            why.addSuppressed(e);
            log.warn("Could not abort the upload of {} after its write failed; the batch's discard will", target);
        }
    }

    /** The future's value, its failure thrown as the IOException it wraps. */
    static <T> T await(CompletableFuture<T> future) throws IOException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the store");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(cause);
        }
    }
}
