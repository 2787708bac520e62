package io.hivesink.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import io.hivesink.fs.HadoopFileSystems;
import io.hivesink.fs.StagingArea;
import io.hivesink.stack.s3.S3ProxyProcess;

/**
 * What moving a batch's files into their tables costs on S3 (S3Proxy in a child JVM, its filesystem store), the
 * connector's way against the old one, over batch sizes: files staged as uncompleted multipart uploads and moved by
 * completing them, against files staged as objects of the staging prefix and moved by S3A's rename, which copies
 * every byte and deletes. Both through the connector's own {@link StagingArea}, in the same run, alternating which
 * goes first. Prints, per batch size and way, the median staging and moving times and the requests the move sent
 * per file, by S3 operation, as S3Proxy counted them.
 *
 * <pre>
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *     io.hivesink.bench.S3CommitBenchmark [--batch-mib 16,64,256] [--files 4] [--rounds 5]
 * </pre>
 */
public final class S3CommitBenchmark {

    private static final String BUCKET = "bench";
    private static final int CHUNK = 1 << 20;

    private final FileSystem fs;
    private final S3ProxyProcess s3;
    private final byte[] chunk = new byte[CHUNK];

    private S3CommitBenchmark(FileSystem fs, S3ProxyProcess s3) {
        this.fs = fs;
        this.s3 = s3;
        new Random(42).nextBytes(chunk); // incompressible, as encoded and compressed files are
    }

    /** One batch moved one way: the times, and the requests its move sent per S3 operation. */
    record Run(String way, long batchBytes, int files, long stageMs, long moveMs, Map<String, Long> moveRequests) {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = WriterBenchmark.options(args);
        List<Integer> batchMib = List.of(options.getOrDefault("batch-mib", "16,64,256").split(",")).stream()
                .map(String::trim).map(Integer::parseInt).toList();
        int files = Integer.parseInt(options.getOrDefault("files", "4"));
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "5"));
        try (S3ProxyProcess s3 = S3ProxyProcess.start(Path.of("target", "s3-commit", "s3proxy"))) {
            s3.createBucket(BUCKET);
            Configuration conf = HadoopFileSystems.configuration("", "");
            s3.s3aSettings().forEach(conf::set);
            try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET), conf)) {
                new S3CommitBenchmark(fs, s3).run(batchMib, files, rounds);
            }
        }
    }

    private void run(List<Integer> batchMib, int files, int rounds) throws IOException {
        System.out.printf("S3 commit: %d files a batch, %d rounds per batch size, S3Proxy %s%n", files, rounds,
                s3.endpoint());
        batch(files, (long) files * CHUNK, 0, "warm-up", true); // JIT and S3A's connection pool, not measured
        batch(files, (long) files * CHUNK, 0, "warm-up", false);
        List<String> summary = new ArrayList<>();
        for (int mib : batchMib) {
            long bytes = (long) mib << 20;
            List<Run> completing = new ArrayList<>();
            List<Run> renaming = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                boolean completeFirst = round % 2 == 1;
                for (boolean complete : completeFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
                    Run run = batch(files, bytes, round, mib + "mib", complete);
                    (complete ? completing : renaming).add(run);
                    System.out.printf(Locale.ROOT, "  %4d MiB round %d %-8s stage %6d ms, move %6d ms, move "
                            + "requests %s%n", mib, round, run.way(), run.stageMs(), run.moveMs(),
                            run.moveRequests());
                }
            }
            long completeMove = median(completing, Run::moveMs);
            long renameMove = median(renaming, Run::moveMs);
            summary.add(String.format(Locale.ROOT, "%6d MiB  complete: stage %6d ms, move %5d ms, per file %s%n"
                    + "%10s  rename:   stage %6d ms, move %5d ms, per file %s%n"
                    + "%10s  rename's move / completion's move: %.1fx%n", mib, median(completing, Run::stageMs),
                    completeMove, perFile(completing.get(0)), "", median(renaming, Run::stageMs), renameMove,
                    perFile(renaming.get(0)), "", renameMove / (double) Math.max(1, completeMove)));
        }
        System.out.println("Medians (requests per file of the first round's move):");
        summary.forEach(System.out::print);
    }

    /** Stages one batch of {@code files} files of {@code bytes} in all, then moves them, timing both. */
    private Run batch(int files, long bytes, int round, String label, boolean complete) throws IOException {
        String way = complete ? "complete" : "rename";
        org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path("/warehouse/.hive-sink-staging/bench");
        StagingArea staging = complete ? new StagingArea(fs, root) : StagingArea.renaming(fs, root);
        String batchId = label + "-" + round + "-" + way;
        org.apache.hadoop.fs.Path table = new org.apache.hadoop.fs.Path("/warehouse/events");
        fs.mkdirs(table);
        List<org.apache.hadoop.fs.Path[]> moves = new ArrayList<>();
        long fileBytes = bytes / files;
        long stageStart = System.nanoTime();
        for (int f = 0; f < files; f++) {
            org.apache.hadoop.fs.Path staged = staging.stagedPath(batchId, "events", "", "part-" + f + ".avro");
            org.apache.hadoop.fs.Path target = new org.apache.hadoop.fs.Path(table, batchId + "-" + f + ".avro");
            staging.write(staged, target, out -> write(out, fileBytes));
            moves.add(new org.apache.hadoop.fs.Path[] {staged, target});
        }
        long stageMs = (System.nanoTime() - stageStart) / 1_000_000;
        Map<String, Long> before = s3.requestsByOperation();
        long moveStart = System.nanoTime();
        for (org.apache.hadoop.fs.Path[] move : moves) {
            staging.move(move[0], move[1]);
        }
        long moveMs = (System.nanoTime() - moveStart) / 1_000_000;
        Map<String, Long> requests = s3.requestsSince(before);
        for (org.apache.hadoop.fs.Path[] move : moves) {
            fs.delete(move[1], false); // the store's disk holds one batch at a time
        }
        staging.discard(batchId);
        return new Run(way, bytes, files, stageMs, moveMs, requests);
    }

    private long write(OutputStream out, long bytes) throws IOException {
        long left = bytes;
        while (left > 0) {
            int n = (int) Math.min(left, chunk.length);
            out.write(chunk, 0, n);
            left -= n;
        }
        return bytes;
    }

    private static String perFile(Run run) {
        Map<String, String> perFile = new TreeMap<>();
        run.moveRequests().forEach((operation, n) -> perFile.put(operation,
                String.format(Locale.ROOT, "%.2f", n / (double) run.files())));
        return perFile.toString();
    }

    private static long median(List<Run> runs, ToLongFunction<Run> value) {
        List<Long> values = new ArrayList<>(runs.stream().map(value::applyAsLong).toList());
        Collections.sort(values);
        return values.get(values.size() / 2);
    }
}
