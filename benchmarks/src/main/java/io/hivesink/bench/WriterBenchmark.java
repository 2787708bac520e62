package io.hivesink.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The writer benchmark: every scenario in its own JVM, all scenarios round-robin for several rounds, then medians
 * and ratios paired within a round (so drift on a noisy machine hits both sides of a ratio alike).
 *
 * <pre>
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) io.hivesink.bench.WriterBenchmark \
 *     [--rounds 3] [--warmups 4] [--iterations 3] [--sets STOCKQUOTE,WIDE300]
 *     [--codecs null,snappy,zstandard,deflate] [--threads 1,2,4]
 *     [--records-scale 1.0] [--scenarios a,b,c,d,e,f,pa,pi,pc,pd,oa,oc,od] [--out docs/benchmark-results.md]
 * </pre>
 */
public final class WriterBenchmark {

    record Spec(BenchData.DataSet set, int records, String codec, Scenario scenario, int threads) {
        String key() {
            return set + "/" + codec + "/" + name();
        }

        String name() {
            return switch (scenario) {
                case AVRO_DEFAULT -> "a";
                case AVRO_BUFFERED -> "b";
                case HIVE_SINK -> "c@" + threads;
                case PASSTHROUGH -> "d@" + threads;
                case AVRO_FROM_BYTES -> "e";
                case WRITE_ONLY -> "f@" + threads;
                case PARQUET_AVRO -> "pa";
                case PARQUET_HIVE_SINK -> "pc@" + threads;
                case PARQUET_PASSTHROUGH -> "pd@" + threads;
                case ORC_GENERIC -> "oa";
                case PARQUET_ICEBERG -> "pi";
                case ORC_HIVE_SINK -> "oc@" + threads;
                case ORC_PASSTHROUGH -> "od@" + threads;
            };
        }

        boolean threaded() {
            return scenario == Scenario.HIVE_SINK || scenario == Scenario.PASSTHROUGH
                    || scenario == Scenario.WRITE_ONLY || scenario == Scenario.PARQUET_HIVE_SINK
                    || scenario == Scenario.PARQUET_PASSTHROUGH || scenario == Scenario.ORC_HIVE_SINK
                    || scenario == Scenario.ORC_PASSTHROUGH;
        }
    }

    private WriterBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
        int warmups = Integer.parseInt(options.getOrDefault("warmups", "4"));
        int iterations = Integer.parseInt(options.getOrDefault("iterations", "3"));
        double scale = Double.parseDouble(options.getOrDefault("records-scale", "1.0"));
        List<BenchData.DataSet> sets = Arrays.stream(options.getOrDefault("sets", "STOCKQUOTE,WIDE300").split(","))
                .map(BenchData.DataSet::valueOf).toList();
        List<String> codecs = List.of(options.getOrDefault("codecs", "null,snappy,zstandard,deflate").split(","));
        List<Integer> threads = Arrays.stream(options.getOrDefault("threads", "1,2,4").split(","))
                .map(Integer::parseInt).toList();
        String heap = options.getOrDefault("heap", "-Xms6g -Xmx6g");
        List<String> scenarios = List.of(options.getOrDefault("scenarios", "a,b,c").split(","));

        List<Spec> specs = new ArrayList<>();
        for (BenchData.DataSet set : sets) {
            int records = (int) Math.max(1, (set == BenchData.DataSet.STOCKQUOTE ? 1_000_000 : 250_000) * scale);
            for (String codec : codecs) {
                for (String scenario : scenarios) {
                    switch (scenario.trim()) {
                        case "a" -> specs.add(new Spec(set, records, codec, Scenario.AVRO_DEFAULT, 1));
                        case "b" -> specs.add(new Spec(set, records, codec, Scenario.AVRO_BUFFERED, 1));
                        case "e" -> specs.add(new Spec(set, records, codec, Scenario.AVRO_FROM_BYTES, 1));
                        case "pa" -> specs.add(new Spec(set, records, codec, Scenario.PARQUET_AVRO, 1));
                        case "oa" -> specs.add(new Spec(set, records, codec, Scenario.ORC_GENERIC, 1));
                        case "pi" -> specs.add(new Spec(set, records, codec, Scenario.PARQUET_ICEBERG, 1));
                        case "c", "d", "f", "pc", "pd", "oc", "od" -> {
                            Scenario threaded = switch (scenario.trim()) {
                                case "c" -> Scenario.HIVE_SINK;
                                case "d" -> Scenario.PASSTHROUGH;
                                case "pc" -> Scenario.PARQUET_HIVE_SINK;
                                case "pd" -> Scenario.PARQUET_PASSTHROUGH;
                                case "oc" -> Scenario.ORC_HIVE_SINK;
                                case "od" -> Scenario.ORC_PASSTHROUGH;
                                default -> Scenario.WRITE_ONLY;
                            };
                            for (int t : threads) {
                                specs.add(new Spec(set, records, codec, threaded, t));
                            }
                        }
                        default -> throw new IllegalArgumentException("unknown scenario " + scenario
                                + "; give a, b, c, d, e, f, pa, pi, pc, pd, oa, oc or od");
                    }
                }
            }
        }
        System.out.printf("Writer benchmark: %d scenarios x %d rounds, each run in its own JVM (%s), %d warm-up + %d "
                + "measured iterations per run; %d cores%n", specs.size(), rounds, heap, warmups, iterations,
                Runtime.getRuntime().availableProcessors());

        Map<String, List<Double>> millis = new LinkedHashMap<>();
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (int round = 1; round <= rounds; round++) {
            for (Spec spec : specs) {
                List<String> lines = child(heap, spec.set().name(), Integer.toString(spec.records()), spec.codec(),
                        spec.scenario().name(), Integer.toString(spec.threads()), Integer.toString(warmups),
                        Integer.toString(iterations));
                List<Double> runs = new ArrayList<>();
                for (String line : lines) {
                    if (line.startsWith("RESULT ")) {
                        String[] parts = line.split(" ", -1);
                        runs.add(Long.parseLong(parts[1]) / 1000.0);
                        sizes.put(spec.key(), Long.parseLong(parts[2]));
                    }
                }
                double median = median(runs);
                millis.computeIfAbsent(spec.key(), k -> new ArrayList<>()).add(median);
                System.out.printf("round %d  %-40s %9.0f ms%n", round, spec.key(), median);
            }
        }

        StringBuilder table = new StringBuilder();
        table.append(String.format("%n| data set | codec | writer | median ms | records/s | file MB | vs (a) | vs (b) "
                + "| vs (e) | vs (pa) | vs (pi) | vs (oa) |%n"));
        table.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Spec spec : specs) {
            String key = spec.key();
            double median = median(millis.get(key));
            String a = spec.set() + "/" + spec.codec() + "/a";
            String b = spec.set() + "/" + spec.codec() + "/b";
            String e = spec.set() + "/" + spec.codec() + "/e";
            String pa = spec.set() + "/" + spec.codec() + "/pa";
            String oa = spec.set() + "/" + spec.codec() + "/oa";
            String pi = spec.set() + "/" + spec.codec() + "/pi";
            table.append(String.format(Locale.ROOT,
                    "| %s | %s | %s | %.0f | %,.0f | %.1f | %s | %s | %s | %s | %s | %s |%n",
                    spec.set().name().toLowerCase(Locale.ROOT), spec.codec(), spec.scenario().label
                            + (spec.threaded() ? ", " + spec.threads() + " threads" : ""),
                    median, spec.records() / (median / 1000), sizes.get(key) / 1e6,
                    ratio(millis.get(a), millis.get(key)), ratio(millis.get(b), millis.get(key)),
                    ratio(millis.get(e), millis.get(key)), ratio(millis.get(pa), millis.get(key)),
                    ratio(millis.get(pi), millis.get(key)), ratio(millis.get(oa), millis.get(key))));
        }
        System.out.print(table);
        System.out.println();
        System.out.println("Ratios are medians of per-round ratios (baseline time / this time): above 1 is faster.");

        for (BenchData.DataSet set : sets) {
            int records = (int) Math.max(1, (set == BenchData.DataSet.STOCKQUOTE ? 1_000_000 : 250_000) * scale);
            int t = threads.get(threads.size() - 1);
            // as encoded (avro.compress.early=false), then with blocks compressed as the batch fills (snappy)
            for (String[] kind : new String[][] {{"null", "heap", ""}, {"snappy", "heap-early",
                    ", blocks compressed early (snappy)"}}) {
                for (String line : child(heap, set.name(), Integer.toString(records), kind[0], kind[1],
                        Integer.toString(t), "0", "1")) {
                    if (line.startsWith("HEAP ")) {
                        String[] parts = line.split(" ", -1);
                        long count = Long.parseLong(parts[1]);
                        double encoded = Long.parseLong(parts[2]) / (double) count;
                        double held = Long.parseLong(parts[3]) / (double) count;
                        String heapLine = String.format(Locale.ROOT, "Heap per buffered record, %s%s, %d records: "
                                + "%.0f bytes held for %.0f bytes encoded (%.3fx)",
                                set.name().toLowerCase(Locale.ROOT), kind[2], count, held, encoded, held / encoded);
                        System.out.println(heapLine);
                        table.append("\n").append(heapLine).append('\n');
                    }
                }
            }
        }
        String out = options.get("out");
        if (out != null) {
            Files.writeString(Path.of(out), table.toString(), StandardCharsets.UTF_8);
            System.out.println("Wrote " + out);
        }
    }

    /** Median over rounds of (baseline / candidate), both measured in the same round. */
    static String ratio(List<Double> baseline, List<Double> candidate) {
        if (baseline == null || candidate == null || baseline == candidate) {
            return "";
        }
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < Math.min(baseline.size(), candidate.size()); i++) {
            ratios.add(baseline.get(i) / candidate.get(i));
        }
        return String.format(Locale.ROOT, "%.2fx", median(ratios));
    }

    /** The median of measurements; NaN sorts last, as {@link Double#compare} orders it. */
    public static double median(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalStateException("a scenario produced no measurement");
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static List<String> child(String heap, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(heap.split(" ")));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ScenarioMain.class.getName());
        command.addAll(Arrays.asList(args));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                lines.add(line);
            }
        }
        int exit = process.waitFor();
        if (exit != 0) {
            throw new IllegalStateException("scenario " + String.join(" ", args) + " exited with " + exit);
        }
        return lines;
    }

    /** {@code --name value} pairs, in order. */
    public static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 == args.length) {
                throw new IllegalArgumentException("expected --option value, got " + args[i]);
            }
            options.put(args[i].substring(2), args[++i]);
        }
        return options;
    }
}
