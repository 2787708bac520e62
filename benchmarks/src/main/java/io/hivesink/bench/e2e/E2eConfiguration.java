package io.hivesink.bench.e2e;

import java.util.Comparator;
import java.util.Locale;

import io.hivesink.bench.BenchData.DataSet;

/** One configuration of the end-to-end benchmark: which sink, on which records, read how, with how many tasks. */
record E2eConfiguration(Sink sink, DataSet set, Input input, int tasks, int batchRecords, Mode mode) {

    enum Sink {
        HIVE_SINK("hive-sink"), ICEBERG("iceberg");

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

    /** The order the benchmark lists configurations in, whatever order they ran in. */
    static final Comparator<E2eConfiguration> LISTING = Comparator.comparing(E2eConfiguration::set)
            .thenComparing(E2eConfiguration::sink).thenComparing(E2eConfiguration::input)
            .thenComparingInt(E2eConfiguration::tasks).thenComparingInt(E2eConfiguration::batchRecords)
            .thenComparing(E2eConfiguration::mode);

    String dataSet() {
        return set.name().toLowerCase(Locale.ROOT);
    }

    /** The key the medians are grouped by, and the plot's label. */
    String label() {
        String batch = sink == Sink.ICEBERG ? "" : ", batch " + (batchRecords >= 1_000_000
                ? batchRecords / 1_000_000 + "M" : batchRecords / 1_000 + "k");
        return sink.label + " " + dataSet() + " " + input.label() + ", " + tasks + (tasks == 1 ? " task" : " tasks")
                + batch + (mode == Mode.NONE ? "" : ", " + mode.label);
    }
}
