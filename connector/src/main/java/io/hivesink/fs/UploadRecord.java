package io.hivesink.fs;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.fs.BBPartHandle;
import org.apache.hadoop.fs.BBUploadHandle;
import org.apache.hadoop.fs.PartHandle;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UploadHandle;

/**
 * What a file staged as a multipart upload leaves at its staged path: its target, and, once every part is uploaded,
 * its upload's and parts' handles and its length, which is all it takes to complete it. Written twice: with the
 * target alone before the upload starts, so that whatever a crash leaves of an upload can be found by its key and
 * aborted; whole after its last part.
 *
 * @param upload null while the upload is not whole
 * @param length -1 while the upload is not whole
 */
record UploadRecord(Path target, UploadHandle upload, Map<Integer, PartHandle> parts, long length) {

    private static final int MAGIC = 0x48535532; // "HSU2"
    /** S3 takes at most 10,000 parts. */
    private static final int MAX_PARTS = 10_000;
    /** A handle holds a few ids and a path; anything this long is not one. */
    private static final int MAX_HANDLE_BYTES = 1 << 16;

    UploadRecord {
        parts = Map.copyOf(parts);
    }

    /** The record of an upload about to start. */
    static UploadRecord starting(Path target) {
        return new UploadRecord(target, null, Map.of(), -1);
    }

    boolean whole() {
        return length >= 0;
    }

    byte[] toBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeUTF(target.toString());
            out.writeLong(length);
            if (!whole()) {
                return bytes.toByteArray();
            }
            writeBytes(out, upload.toByteArray());
            out.writeInt(parts.size());
            for (Map.Entry<Integer, PartHandle> part : new TreeMap<>(parts).entrySet()) {
                out.writeInt(part.getKey());
                writeBytes(out, part.getValue().toByteArray());
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot happen: writing to memory", e);
        }
        return bytes.toByteArray();
    }

    static UploadRecord fromBytes(byte[] bytes, Path where) throws IOException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            if (in.readInt() != MAGIC) {
                throw new IOException(where + " is not the record of a staged upload");
            }
            Path target = new Path(in.readUTF());
            long length = in.readLong();
            if (length < 0) {
                return starting(target);
            }
            UploadHandle upload = BBUploadHandle.from(ByteBuffer.wrap(readBytes(in, where)));
            int count = in.readInt();
            if (count < 1 || count > MAX_PARTS) {
                throw new IOException(where + " names " + count + " parts: not the record of a staged upload");
            }
            Map<Integer, PartHandle> parts = new TreeMap<>();
            for (int i = 0; i < count; i++) {
                int number = in.readInt();
                parts.put(number, BBPartHandle.from(ByteBuffer.wrap(readBytes(in, where))));
            }
            return new UploadRecord(target, upload, parts, length);
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputStream in, Path where) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_HANDLE_BYTES) {
            throw new IOException(where + " holds a handle of " + length + " bytes: not the record of a staged upload");
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }
}
