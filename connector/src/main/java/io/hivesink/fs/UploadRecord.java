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
 * What a file staged as a multipart upload leaves at its staged path: its target and its upload's handle, and, once
 * every part is uploaded, its parts' handles and its length, which is all it takes to complete it. Written twice:
 * as soon as the upload has started, so that an upload a crash cut short can be aborted; whole after its last part.
 *
 * @param length -1 while the upload is not whole
 */
record UploadRecord(Path target, UploadHandle upload, Map<Integer, PartHandle> parts, long length) {

    private static final int MAGIC = 0x48535531; // "HSU1"

    UploadRecord {
        parts = Map.copyOf(parts);
    }

    /** The record of an upload just started. */
    static UploadRecord started(Path target, UploadHandle upload) {
        return new UploadRecord(target, upload, Map.of(), -1);
    }

    boolean whole() {
        return length >= 0;
    }

    byte[] toBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeUTF(target.toString());
            writeBytes(out, upload.toByteArray());
            out.writeLong(length);
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
            UploadHandle upload = BBUploadHandle.from(ByteBuffer.wrap(readBytes(in)));
            long length = in.readLong();
            int count = in.readInt();
            Map<Integer, PartHandle> parts = new TreeMap<>();
            for (int i = 0; i < count; i++) {
                int number = in.readInt();
                parts.put(number, BBPartHandle.from(ByteBuffer.wrap(readBytes(in))));
            }
            return new UploadRecord(target, upload, parts, length);
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return bytes;
    }
}
