package io.hivesink.parquet;

import java.io.IOException;
import java.io.OutputStream;

import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A Parquet output over a stream the caller owns: the staging area opens, syncs and closes it, so closing the Parquet
 * writer only flushes it.
 */
final class StreamOutputFile implements OutputFile {

    private final CountingStream stream;

    StreamOutputFile(OutputStream out) {
        this.stream = new CountingStream(out);
    }

    long written() {
        return stream.position;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) {
        return stream;
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
        return stream;
    }

    @Override
    public boolean supportsBlockSize() {
        return false;
    }

    @Override
    public long defaultBlockSize() {
        return 0;
    }

    private static final class CountingStream extends PositionOutputStream {
        private final OutputStream out;
        private long position;

        CountingStream(OutputStream out) {
            this.out = out;
        }

        @Override
        public long getPos() {
            return position;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            position++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            position += len;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.flush();
        }
    }
}
