package io.hivesink.it.support;

import java.io.IOException;

import org.apache.avro.file.SeekableInput;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Lets Avro's DataFileReader read a file through the Hadoop FileSystem API. */
public final class HadoopSeekableInput implements SeekableInput {

    private final FSDataInputStream in;
    private final long length;

    public HadoopSeekableInput(FileSystem fs, Path path) throws IOException {
        this.in = fs.open(path);
        this.length = fs.getFileStatus(path).getLen();
    }

    @Override
    public void seek(long position) throws IOException {
        in.seek(position);
    }

    @Override
    public long tell() throws IOException {
        return in.getPos();
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        return in.read(b, off, len);
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
