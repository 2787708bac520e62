package io.hivesink.bench;

import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;

import org.apache.kafka.connect.sink.SinkRecord;

import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.batch.Batch;
import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.RecordGroup;
import io.hivesink.batch.TableAdmission;
import io.hivesink.batch.TableLayouts;
import io.hivesink.input.ConnectInput;
import io.hivesink.route.TableRouter;

/**
 * Runs one scenario in this JVM and prints one {@code RESULT} line per measured iteration. Started by
 * {@link WriterBenchmark}, one JVM per scenario.
 *
 * <pre>ScenarioMain DATASET RECORDS CODEC SCENARIO|heap|heap-early THREADS WARMUPS ITERATIONS</pre>
 */
public final class ScenarioMain {

    private ScenarioMain() {
    }

    public static void main(String[] args) throws Exception {
        BenchData.DataSet set = BenchData.DataSet.valueOf(args[0]);
        int records = Integer.parseInt(args[1]);
        String codec = args[2];
        String scenario = args[3];
        int threads = Integer.parseInt(args[4]);
        int warmups = Integer.parseInt(args[5]);
        int iterations = Integer.parseInt(args[6]);

        Scenario.Input input = Scenario.Input.of(set, records, 42);
        ExecutorService pool = Scenario.pool(threads);
        if (scenario.equals("heap")) {
            heap(input, threads, pool, null);
            return;
        }
        if (scenario.equals("heap-early")) {
            try (ParallelContainerWriter writer = new ParallelContainerWriter(pool, threads, codec, -1,
                    Scenario.SYNC_INTERVAL, Map.of())) {
                heap(input, threads, pool, writer);
            }
            return;
        }
        Scenario kind = Scenario.valueOf(scenario);
        if (kind == Scenario.PASSTHROUGH || kind == Scenario.AVRO_FROM_BYTES || kind == Scenario.WRITE_ONLY
                || kind == Scenario.PARQUET_PASSTHROUGH || kind == Scenario.ORC_PASSTHROUGH) {
            input = input.withFramedRecords();
        }
        for (int i = 0; i < warmups + iterations; i++) {
            System.gc();
            long start = System.nanoTime();
            long bytes = kind.run(input, codec, threads, pool, OutputStream.nullOutputStream());
            long micros = (System.nanoTime() - start) / 1_000;
            if (i >= warmups) {
                System.out.println("RESULT " + micros + " " + bytes);
            }
        }
        System.exit(0);
    }

    /**
     * Heap held by a closed batch per record, against the records' encoded size, measured after full GCs. With an
     * early writer, the batch's blocks are compressed as it fills, and its files are written (to nowhere) before the
     * measure, so that every block, the last one of each file included, is held compressed.
     */
    private static void heap(Scenario.Input input, int threads, ExecutorService pool, ParallelContainerWriter early)
            throws Exception {
        // warm up, so that classes and thread-local buffers are in place before the baseline
        fill(input.sinkRecords().subList(0, Math.min(20_000, input.sinkRecords().size())), threads, pool, early);
        long before = usedAfterGc();
        Batch batch = fill(input.sinkRecords(), threads, pool, early);
        if (early != null) {
            for (RecordGroup group : batch.groups()) {
                early.write(group.layout().avroSchema(), group.datums(), OutputStream.nullOutputStream());
            }
        }
        long after = usedAfterGc();
        long encoded = batch.bytes();
        long held = after - before;
        System.out.println("HEAP " + batch.records() + " " + encoded + " " + held); // the batch is live until here
        System.exit(0);
    }

    private static Batch fill(List<SinkRecord> records, int threads, ExecutorService pool,
            ParallelContainerWriter early) {
        BatchBuffer buffer = new BatchBuffer(ConnectInput.INSTANCE, byTopic(),
                new TableLayouts("bench", table -> List.of(), TableAdmission.ANY), "bench", pool, 2 * threads + 2,
                false, early == null ? null : table -> early);
        for (SinkRecord record : records) {
            buffer.add(record, 0);
        }
        return buffer.drain();
    }

    private static long usedAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    /** Routes each record to the table named after its topic. */
    static TableRouter byTopic() {
        return new TableRouter(Map.of(), null, null, "${topic}", Set.of());
    }
}
