package io.hivesink.fs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.MultipartUploader;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.UploadHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stages a file as a multipart upload to its target, left uncompleted, and moves it by completing the upload: on S3
 * an uncompleted upload is invisible, and completing it is one request whatever the file's size, where a rename
 * copies every byte. The staged path holds the {@link UploadRecord} that completes it. Through Hadoop's
 * {@link MultipartUploader}, so that the handles are the FileSystem's own and any store that offers uploads works.
 *
 * <p>A move is repeatable: an upload completed before (by a run that crashed before removing its record) is
 * recognised by its target, there at the recorded length. A batch given up before its intent has its uploads
 * aborted ({@link #abandon}). What no record covers is an upload a crash cut off between its start and its first
 * record, which holds no part: a bucket lifecycle rule that aborts incomplete uploads after a day removes it.
 */
final class MultipartMover implements Mover {

    private static final Logger log = LoggerFactory.getLogger(MultipartMover.class);
    /** S3's least part but the last is 5 MiB; 8 MiB parts keep a 1 GiB file within S3's 10,000 parts. */
    static final int PART_BYTES = 8 << 20;

    private final FileSystem fs;
    private final int partBytes;

    MultipartMover(FileSystem fs) {
        this(fs, PART_BYTES);
    }

    MultipartMover(FileSystem fs, int partBytes) {
        this.fs = fs;
        this.partBytes = partBytes;
    }

    @Override
    public long write(Path staged, Path target, StagingArea.Content content) throws IOException {
        try (MultipartUploader uploader = uploader(target)) {
            UploadHandle upload = await(uploader.startUpload(target));
            PartUploadStream out = new PartUploadStream(uploader, upload, target, partBytes);
            long bytes;
            try {
                writeRecord(staged, UploadRecord.started(target, upload));
                bytes = content.writeTo(out);
                out.close();
                writeRecord(staged, new UploadRecord(target, upload, out.parts(), out.length()));
            } catch (IOException | RuntimeException e) {
                abortQuietly(uploader, upload, target, e);
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
            throw new IOException("Cannot complete the upload of " + target + ": its record " + staged + " is gone "
                    + "and the object is not there");
        }
        UploadRecord record = readRecord(staged);
        if (!record.whole()) {
            throw new IOException("Cannot complete the upload of " + target + ": its record " + staged + " says "
                    + "its parts were never all uploaded");
        }
        boolean completedNow = true;
        try (MultipartUploader uploader = uploader(target)) {
            await(uploader.complete(record.upload(), target, record.parts()));
        } catch (IOException e) {
            FileStatus there = statusOrNull(target);
            if (there == null || there.getLen() != record.length()) {
                throw e;
            }
            completedNow = false; // completed by an earlier try, which stopped before removing the record
        }
        fs.delete(staged, false);
        return completedNow;
    }

    @Override
    public void abandon(Path dir) throws IOException {
        if (!fs.exists(dir)) {
            return;
        }
        RemoteIterator<LocatedFileStatus> files = fs.listFiles(dir, true);
        while (files.hasNext()) {
            Path staged = files.next().getPath();
            if (staged.getName().equals(StagingArea.MANIFEST_NAME)) {
                continue;
            }
            UploadRecord record = readRecord(staged);
            try (MultipartUploader uploader = uploader(record.target())) {
                await(uploader.abort(record.upload(), record.target()));
            } catch (FileNotFoundException e) {
                // aborted before: a repeated discard
            }
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
