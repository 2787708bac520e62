package io.hivesink.bench.e2e;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;

import io.hivesink.bench.BenchData.DataSet;

/**
 * One configuration of the end-to-end benchmark: which sink, on which records, read how, with how many tasks, into
 * which file format. The consumer is no sink: Kafka's ConsumerPerformance reading the same topic, the ceiling.
 */
record E2eConfiguration(Sink sink, DataSet set, Input input, int tasks, int batchRecords, Mode mode, Format format,
        Store store) {

    /** A configuration writing to HDFS, as every run did before the store was a dimension. */
    E2eConfiguration(Sink sink, DataSet set, Input input, int tasks, int batchRecords, Mode mode, Format format) {
        this(sink, set, input, tasks, batchRecords, mode, format, Store.HDFS);
    }

    enum Sink {
        HIVE_SINK("hive-sink"), ICEBERG("iceberg"), CONSUMER("consumer");

        final String label;

        Sink(String label) {
            this.label = label;
        }
    }

    /** How records reach the sink: the framed bytes as they are, or turned into Structs by a converter. */
    enum Input {
        PASSTHROUGH, STRUCT;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * hive-sink's task: the next batch taken while the previous one commits, or one after the other; AT_CLOSE is
     * pipelined with blocks compressed when the batch is written rather than as they fill (avro.compress.early=false).
     */
    enum Mode {
        PIPELINED("pipelined"), SERIAL("serial"), AT_CLOSE("pipelined compressed-at-close"), NONE("-");

        final String label;

        Mode(String label) {
            this.label = label;
        }
    }

    /** The files both sinks write, with the same codec at the same level; none for the consumer. */
    enum Format {
        AVRO("avro"), PARQUET("parquet"), NONE("-");

        final String label;

        Format(String label) {
            this.label = label;
        }
    }

    /**
     * Where the tables' files go: HDFS (MiniDFSCluster), or S3 (S3Proxy in a child JVM on its filesystem store),
     * where hive-sink stages files as uploads and completes them. None for the consumer.
     */
    enum Store {
        HDFS("hdfs"), S3("s3");

        final String label;

        Store(String label) {
            this.label = label;
        }

        static Store of(String label) {
            return Arrays.stream(values()).filter(s -> s.label.equals(label)).findFirst().orElseThrow(
                    () -> new IllegalArgumentException("no store " + label + ": hdfs or s3"));
        }
    }

    /** The consumer's one configuration on a data set: one consumer reading the framed bytes. */
    static E2eConfiguration consumer(DataSet set) {
        return new E2eConfiguration(Sink.CONSUMER, set, Input.PASSTHROUGH, 1, 0, Mode.NONE, Format.NONE);
    }

    /** The order the benchmark lists configurations in, whatever order they ran in. */
    static final Comparator<E2eConfiguration> LISTING = Comparator.comparing(E2eConfiguration::set)
            .thenComparing(E2eConfiguration::sink).thenComparing(E2eConfiguration::format)
            .thenComparing(E2eConfiguration::input)
            .thenComparingInt(E2eConfiguration::tasks).thenComparingInt(E2eConfiguration::batchRecords)
            .thenComparing(E2eConfiguration::mode).thenComparing(E2eConfiguration::store);

    String dataSet() {
        return set.name().toLowerCase(Locale.ROOT);
    }

    /** The key the medians are grouped by, and the plot's label. */
    String label() {
        if (sink == Sink.CONSUMER) {
            return "consumer " + dataSet() + ", the ceiling (Kafka's ConsumerPerformance)";
        }
        String batch = sink == Sink.ICEBERG ? "" : ", batch " + (batchRecords >= 1_000_000
                ? batchRecords / 1_000_000 + "M" : batchRecords / 1_000 + "k");
        return sink.label + " " + dataSet() + " " + format.label + " " + input.label() + ", " + tasks
                + (tasks == 1 ? " task" : " tasks")
                + batch + (mode == Mode.NONE ? "" : ", " + mode.label) + (store == Store.S3 ? ", on S3" : "");
    }
}
