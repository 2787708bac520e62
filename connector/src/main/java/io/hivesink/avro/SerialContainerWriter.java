package io.hivesink.avro;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

import org.apache.avro.Schema;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumWriter;

/** A single-threaded container writer on Avro's own {@link DataFileWriter}, appending already encoded datums. */
public final class SerialContainerWriter implements ContainerFileWriter {

    private final String codecName;
    private final int codecLevel;
    private final int syncIntervalBytes;

    public SerialContainerWriter(String codecName, int codecLevel, int syncIntervalBytes) {
        this.codecName = codecName;
        this.codecLevel = codecLevel;
        this.syncIntervalBytes = syncIntervalBytes;
        AvroCodecFactories.create(codecName, codecLevel); // fail at start-up, not at the first flush
    }

    @Override
    public long write(Schema schema, DatumSource datums, OutputStream out) throws IOException {
        CountingStream counting = new CountingStream(out);
        try (DataFileWriter<Object> writer = new DataFileWriter<>(new GenericDatumWriter<>(schema))) {
            writer.setCodec(AvroCodecFactories.create(codecName, codecLevel));
            writer.setSyncInterval(syncIntervalBytes);
            writer.create(schema, counting);
            for (int i = 0; i < datums.count(); i++) {
                writer.appendEncoded(ByteBuffer.wrap(datums.page(i), datums.start(i), datums.length(i)));
            }
        }
        return counting.count;
    }

    /** Counts bytes and keeps DataFileWriter.close() from closing the caller's stream. */
    private static final class CountingStream extends FilterOutputStream {
        long count;

        CountingStream(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
        }

        @Override
        public void close() throws IOException {
            out.flush();
        }
    }
}
