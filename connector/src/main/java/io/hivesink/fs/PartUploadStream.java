package io.hivesink.fs;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.hadoop.fs.MultipartUploader;
import org.apache.hadoop.fs.PartHandle;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UploadHandle;

/**
 * The bytes of one file, uploaded as the parts of a multipart upload as they fill; closing uploads the last. Its
 * buffer grows from 64 KiB to a part's size, so that the many small files of a batch of many partitions cost small
 * buffers; one file is written at a time.
 */
final class PartUploadStream extends OutputStream {

    private static final int FIRST_BUFFER = 64 << 10;

    private final MultipartUploader uploader;
    private final UploadHandle upload;
    private final Path target;
    private final int partBytes;
    private final Map<Integer, PartHandle> parts = new LinkedHashMap<>();
    private byte[] buffer;
    private int filled;
    private long length;
    private boolean closed;

    PartUploadStream(MultipartUploader uploader, UploadHandle upload, Path target, int partBytes) {
        this.uploader = uploader;
        this.upload = upload;
        this.target = target;
        this.partBytes = partBytes;
        this.buffer = new byte[Math.min(FIRST_BUFFER, partBytes)];
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int count) throws IOException {
        if (closed) {
            throw new IOException("The upload of " + target + " is closed");
        }
        int at = offset;
        int left = count;
        while (left > 0) {
            if (filled == buffer.length) {
                if (buffer.length < partBytes) {
                    buffer = Arrays.copyOf(buffer, Math.min(buffer.length * 2, partBytes));
                } else {
                    uploadPart();
                }
            }
            int n = Math.min(left, buffer.length - filled);
            System.arraycopy(bytes, at, buffer, filled, n);
            filled += n;
            at += n;
            left -= n;
        }
    }

    private void uploadPart() throws IOException {
        int number = parts.size() + 1;
        parts.put(number, MultipartMover.await(uploader.putPart(upload, number, target,
                new ByteArrayInputStream(buffer, 0, filled), filled)));
        length += filled;
        filled = 0;
    }

    /** Uploads the last part (an empty file is one empty part). */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        if (filled > 0 || parts.isEmpty()) {
            uploadPart();
        }
        closed = true;
        buffer = null;
    }

    /** The parts uploaded, by number. */
    Map<Integer, PartHandle> parts() {
        return parts;
    }

    /** The bytes uploaded. */
    long length() {
        return length;
    }
}
