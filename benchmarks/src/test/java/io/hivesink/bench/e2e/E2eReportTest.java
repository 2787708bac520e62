package io.hivesink.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.bench.BenchData.DataSet;
import io.hivesink.bench.e2e.E2eConfiguration.Format;
import io.hivesink.bench.e2e.E2eConfiguration.Input;
import io.hivesink.bench.e2e.E2eConfiguration.Mode;
import io.hivesink.bench.e2e.E2eConfiguration.Sink;
import io.hivesink.bench.e2e.E2eConfiguration.Store;
import io.hivesink.bench.e2e.E2eRun.Measurement;
import io.hivesink.bench.e2e.ThreadCpu.CpuSplit;

/** A runs.csv read back gives the same report as the runs that wrote it; ratios pair runs of the same round. */
class E2eReportTest {

    private static final E2eConfiguration PIPELINED = new E2eConfiguration(Sink.HIVE_SINK, DataSet.STOCKQUOTE,
            Input.STRUCT, 1, 100_000, Mode.PIPELINED, Format.AVRO);
    private static final E2eConfiguration SERIAL = new E2eConfiguration(Sink.HIVE_SINK, DataSet.STOCKQUOTE,
            Input.STRUCT, 1, 100_000, Mode.SERIAL, Format.AVRO);
    private static final E2eConfiguration AT_CLOSE = new E2eConfiguration(Sink.HIVE_SINK, DataSet.STOCKQUOTE,
            Input.STRUCT, 1, 100_000, Mode.AT_CLOSE, Format.AVRO);
    private static final E2eConfiguration ICEBERG = new E2eConfiguration(Sink.ICEBERG, DataSet.STOCKQUOTE,
            Input.STRUCT, 1, 0, Mode.NONE, Format.AVRO);

    private static final E2eRun.Conditions CONDITIONS = new E2eRun.Conditions(0.3, 100, "zstandard");

    private static Measurement run(E2eConfiguration c, int round, double seconds, double stall, double commitMs) {
        // 600 MB over whole seconds: MB/s with one decimal, as runs.csv keeps it, reads back exactly
        return new Measurement(c, round, seconds, 1_000_000, 600_000_000L, 21.5, 0.9, 1_200L << 20, 10, 10, stall,
                commitMs, new CpuSplit(6.5 + round, 3.25, 2.5, 4.5, 1.25, 21.5), CONDITIONS,
                new E2eRun.Outside(2.5 * round, 1.5));
    }

    private final List<Measurement> runs = List.of(
            run(PIPELINED, 1, 10, 0.1, 400), run(SERIAL, 1, 12, 3.6, 380), run(AT_CLOSE, 1, 11, 0.2, 700),
            run(ICEBERG, 1, 30, Double.NaN, Double.NaN),
            run(PIPELINED, 2, 20, 0.3, 600), run(SERIAL, 2, 20, 2.0, 500), run(AT_CLOSE, 2, 22, 0.1, 900),
            run(ICEBERG, 2, 40, Double.NaN, Double.NaN));

    @Test
    void runsReadBackFromTheirCsvReportTheSame(@TempDir Path dir) throws IOException {
        Path csv = dir.resolve("runs.csv");
        StringBuilder text = new StringBuilder(E2eReport.RUN_HEADER).append('\n');
        runs.forEach(m -> text.append(E2eReport.runRow(m)).append('\n'));
        Files.writeString(csv, text);

        List<Measurement> read = E2eReport.readRuns(csv);

        assertEquals(runs.size(), read.size());
        assertEquals(runs.get(1).configuration(), read.get(1).configuration());
        assertEquals(3.6, read.get(1).closeStallSeconds(), 1e-9);
        assertEquals(700, read.get(2).commitMs(), 1e-9);
        assertTrue(Double.isNaN(read.get(3).closeStallSeconds()), "Iceberg has no stall metric");
        assertEquals(new E2eReport(runs).table(), new E2eReport(read).table());
        assertEquals(new E2eReport(runs).cpuTable(), new E2eReport(read).cpuTable());
        assertEquals(CONDITIONS, read.get(0).conditions());
        assertTrue(new E2eReport(read).conditions().contains("each worker first landed 0.3 of the records")
                && new E2eReport(read).conditions().contains("every 100 ms; codec zstandard"),
                new E2eReport(read).conditions());
    }

    @Test
    void aCsvWrittenBeforeTheConditionsWereKeptSaysSoAndLeavesTheOutsideColumnsBlank(@TempDir Path dir)
            throws IOException {
        Measurement read = readBack(dir, runs.get(0), "warm_share");
        assertEquals(E2eRun.Conditions.UNKNOWN, read.conditions());
        assertTrue(new E2eReport(List.of(read)).conditions().contains("not recorded"));
        String row = new E2eReport(List.of(read)).cpuTable().lines().filter(l -> l.startsWith("| "
                + PIPELINED.label() + " |")).findFirst().orElseThrow();
        assertTrue(row.endsWith("| 1.25 | 2.50 |  |  |"), row);
    }

    @Test
    void ratiosAreMediansOfRatiosWithinARound() {
        String table = new E2eReport(runs).table();
        String pipelinedRow = table.lines().filter(l -> l.startsWith("| " + PIPELINED.label() + " |")).findFirst()
                .orElseThrow();
        // vs Iceberg: rounds 3.00x and 2.00x; vs serial: 1.20x and 1.00x; vs compressed at close: 1.10x twice
        assertTrue(pipelinedRow.endsWith("| 500 ms | 2.50x |  | 1.10x | 1.10x |  |"), pipelinedRow);
        String serialRow = table.lines().filter(l -> l.startsWith("| " + SERIAL.label() + " |")).findFirst()
                .orElseThrow();
        assertTrue(serialRow.contains("| 2.8 s (20%) |"), "median stall and median share of the run: " + serialRow);
    }

    @Test
    void eachSinkIsPairedWithIcebergWritingTheSameFormatAndSetAgainstTheConsumer() {
        E2eConfiguration parquet = new E2eConfiguration(Sink.HIVE_SINK, DataSet.STOCKQUOTE, Input.PASSTHROUGH, 1,
                100_000, Mode.PIPELINED, Format.PARQUET);
        E2eConfiguration icebergParquet = new E2eConfiguration(Sink.ICEBERG, DataSet.STOCKQUOTE, Input.STRUCT, 1, 0,
                Mode.NONE, Format.PARQUET);
        E2eConfiguration consumer = E2eConfiguration.consumer(DataSet.STOCKQUOTE);
        List<Measurement> withParquet = new java.util.ArrayList<>(runs);
        withParquet.addAll(List.of(run(parquet, 1, 12, 0.1, 400), run(icebergParquet, 1, 48, Double.NaN, Double.NaN),
                run(consumer, 1, 6, Double.NaN, Double.NaN), run(parquet, 2, 16, 0.1, 400),
                run(icebergParquet, 2, 80, Double.NaN, Double.NaN), run(consumer, 2, 10, Double.NaN, Double.NaN)));
        String table = new E2eReport(withParquet).table();

        // Parquet against Iceberg's Parquet: 4x and 5x; of the consumer: 50% and 62.5%
        String parquetRow = row(table, parquet);
        assertTrue(parquetRow.endsWith("| 4.50x | 56% |  |  |  |"), parquetRow);
        // Avro still against Iceberg's Avro (3x and 2x), and now also against the consumer: 60% and 50%
        assertTrue(row(table, PIPELINED).endsWith("| 2.50x | 55% | 1.10x | 1.10x |  |"), row(table, PIPELINED));
        assertTrue(row(table, consumer).endsWith("|  |  |  |  |  |  |  |  |  |  |  |"), "the consumer has no files, "
                + "commits, heap or ratios of its own: " + row(table, consumer));
        assertTrue(parquet.label().contains(" parquet passthrough"), parquet.label());
    }

    @Test
    void aRunOnS3IsPairedWithItsTwinOnHdfsAndReadsBackOnS3(@TempDir Path dir) throws IOException {
        E2eConfiguration onS3 = new E2eConfiguration(Sink.HIVE_SINK, DataSet.STOCKQUOTE, Input.STRUCT, 1, 100_000,
                Mode.PIPELINED, Format.AVRO, Store.S3);
        List<Measurement> withS3 = new java.util.ArrayList<>(runs);
        withS3.addAll(List.of(run(onS3, 1, 20, 0.1, 900), run(onS3, 2, 25, 0.1, 900)));
        String table = new E2eReport(withS3).table();

        // S3 against HDFS: 10/20 and 20/25 records/s ratios; S3 is not paired with Iceberg, which wrote HDFS
        assertTrue(row(table, onS3).endsWith("| 900 ms |  |  |  |  | 0.65x |"), row(table, onS3));
        assertTrue(row(table, PIPELINED).endsWith("| 2.50x |  | 1.10x | 1.10x |  |"), row(table, PIPELINED));
        assertTrue(onS3.label().endsWith(", on S3"), onS3.label());
        Path csv = Files.writeString(dir.resolve("runs.csv"), E2eReport.RUN_HEADER + "\n"
                + E2eReport.runRow(withS3.get(withS3.size() - 1)) + "\n");
        assertEquals(onS3, E2eReport.readRuns(csv).get(0).configuration());
        assertEquals(PIPELINED, readBack(dir, runs.get(0), "store").configuration(), "a CSV from before: HDFS");
    }

    @Test
    void aCsvWrittenBeforeTheFormatWasAColumnReadsAsAvro(@TempDir Path dir) throws IOException {
        Measurement read = readBack(dir, runs.get(0), "format");
        assertEquals(PIPELINED, read.configuration());
    }

    @Test
    void theConsumersSummaryLineGivesItsRecordsAndSeconds() {
        ConsumerCeiling.Result result = ConsumerCeiling.Result.parse(List.of("some log line",
                "2026-11-26 19:30:01:100, 2026-11-26 19:30:05:100, 753.4, 188.35, 1000000, 250000.0000, 3012, 988, "
                        + "762.3, 1011.1"));
        assertEquals(1_000_000, result.records());
        assertEquals(4.0, result.seconds(), 1e-9);
        assertThrows(IllegalStateException.class, () -> ConsumerCeiling.Result.parse(List.of("WARNING: timeout")));
    }

    private static String row(String table, E2eConfiguration c) {
        return table.lines().filter(l -> l.startsWith("| " + c.label() + " |")).findFirst().orElseThrow();
    }

    @Test
    void aCsvWrittenBeforeCommitTimesWereMeasuredReadsWithoutThem(@TempDir Path dir) throws IOException {
        Measurement read = readBack(dir, runs.get(0), "commit_ms");
        assertEquals(runs.get(0).recordsPerSecond(), read.recordsPerSecond(), 1e-6);
        assertTrue(Double.isNaN(read.commitMs()));
        assertTrue(Double.isNaN(read.cpuSplit().task()));
    }

    @Test
    void aCsvWrittenBeforeTheCpuSplitReadsWithoutItAndItsRunsLeaveTheCpuTable(@TempDir Path dir)
            throws IOException {
        Measurement read = readBack(dir, runs.get(0), "cpu_task_s");
        assertEquals(400, read.commitMs(), 1e-9);
        assertEquals(21.5, read.cpuSplit().total(), 1e-9);
        assertTrue(Double.isNaN(read.cpuSplit().sink()));
        assertTrue(new E2eReport(List.of(read)).table().contains("| " + PIPELINED.label() + " |"));
        assertFalse(new E2eReport(List.of(read)).cpuTable().contains(PIPELINED.label()));
    }

    /** {@code m}'s row in a runs.csv of an earlier version of the benchmark, whose columns ended before one. */
    private static Measurement readBack(Path dir, Measurement m, String firstMissingColumn) throws IOException {
        int header = E2eReport.RUN_HEADER.indexOf("," + firstMissingColumn);
        int columns = E2eReport.RUN_HEADER.substring(0, header).split(",").length;
        String[] row = E2eReport.runRow(m).split(",");
        Path csv = Files.writeString(dir.resolve("runs.csv"), E2eReport.RUN_HEADER.substring(0, header) + "\n"
                + String.join(",", java.util.Arrays.copyOf(row, columns)) + "\n");
        return E2eReport.readRuns(csv).get(0);
    }

    @Test
    void theCpuTableGivesEachPartsMedianPerMillionRecordsAndTheRest() {
        String row = new E2eReport(runs).cpuTable().lines().filter(l -> l.startsWith("| " + PIPELINED.label()
                + " |")).findFirst().orElseThrow();
        // task threads 7.5 and 8.5 s over two rounds: median 8.0; the rest 21.5 - (task + 3.25 + 2.5 + 4.5 + 1.25)
        // outside: this JVM 2.5 and 5.0 s over two rounds of a million records, median 3.75; the metastore 1.5
        assertTrue(row.endsWith("| 21.50 | 8.00 | 3.25 | 2.50 | 4.50 | 1.25 | 2.00 | 3.75 | 1.50 |"), row);
    }

    @Test
    void theTableListsConfigurationsInTheBenchmarksOrderWhateverOrderTheyRanIn() {
        List<Measurement> shuffled = new java.util.ArrayList<>(runs);
        java.util.Collections.reverse(shuffled);
        List<String> labels = new E2eReport(shuffled).table().lines().filter(l -> l.startsWith("| hive-sink")
                || l.startsWith("| iceberg")).map(l -> l.substring(2, l.indexOf(" |"))).toList();
        assertEquals(List.of(PIPELINED.label(), SERIAL.label(), AT_CLOSE.label(), ICEBERG.label()), labels);
    }

    @Test
    void aCsvOfAnotherShapeIsRefusedWithItsHeader(@TempDir Path dir) throws IOException {
        Path csv = Files.writeString(dir.resolve("runs.csv"), "sink,dataset\nhive-sink,stockquote\n");
        IOException e = assertThrows(IOException.class, () -> E2eReport.readRuns(csv));
        assertTrue(e.getMessage().contains(E2eReport.RUN_HEADER), e.getMessage());
    }
}
