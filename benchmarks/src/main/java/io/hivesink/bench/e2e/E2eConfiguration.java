package io.hivesink.bench.e2e;

import java.util.Comparator;
import java.util.Locale;

import io.hivesink.bench.BenchData.DataSet;

/**
 * One configuration of the end-to-end benchmark: which sink, on which records, read how, with how many tasks, into
 * which file format. The consumer is no sink: Kafka's ConsumerPerformance reading the same topic, the ceiling.
 */
record E2eConfiguration(Sink sink, DataSet set, Input input, int tasks, int batchRecords, Mode mode, Format format) {

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

    /** The consumer's one configuration on a data set: one consumer reading the framed bytes. */
    static E2eConfiguration consumer(DataSet set) {
        return new E2eConfiguration(Sink.CONSUMER, set, Input.PASSTHROUGH, 1, 0, Mode.NONE, Format.NONE);
    }

    /** The order the benchmark lists configurations in, whatever order they ran in. */
    static final Comparator<E2eConfiguration> LISTING = Comparator.comparing(E2eConfiguration::set)
            .thenComparing(E2eConfiguration::sink).thenComparing(E2eConfiguration::format)
            .thenComparing(E2eConfiguration::input)
            .thenComparingInt(E2eConfiguration::tasks).thenComparingInt(E2eConfiguration::batchRecords)
            .thenComparing(E2eConfiguration::mode);

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
                + batch + (mode == Mode.NONE ? "" : ", " + mode.label);
    }
}
