package io.hivesink.it.readers;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The README's ledger queries, in each engine's SQL, over what the matrix landed: batches with their records and
 * tables, the rows of complete batches only (joined on the batch id in the file name), and how far each Kafka
 * partition has landed. The ledger is an Avro table, whatever the tables' format.
 */
final class LedgerQueries {

    private LedgerQueries() {
    }

    /** The statements, in the order {@link #compare} reads their results. */
    static List<String> statements(Dialect dialect, Landing landing, List<String> formats) {
        String database = landing.database();
        String ledger = database + ".hive_sink_ledger";
        List<String> statements = new ArrayList<>();
        statements.add("select batch_id, connector_name, task_id, sum(record_count) as records, "
                + "count(distinct table_name) as tables, min(commit_time) as committed from " + ledger
                + " group by batch_id, connector_name, task_id");
        for (String format : formats) {
            String table = "matrix_" + format;
            // on a compacted table, the merged files are named by their compaction, complete once logged
            String compactions = landing.compacted() ? " union select compaction_id from " + database
                    + ".hive_sink_compactions where table_name = '" + table + "'" : "";
            String batches = " join (select distinct batch_id from " + ledger + " where table_name = '" + table
                    + "'" + compactions + ") b on regexp_extract(";
            String batchId = ", 'part-(.+)-[0-9]+[.][a-z]+$', 1) = b.batch_id";
            String sparkScan = "select o.id from (select id, input_file_name() as f from " + database + "." + table
                    + ") o";
            statements.add(switch (dialect) { // Hive's as the README has it; Spark's and Trino's file name in a scan
                case HIVE -> "select o.id from " + database + "." + table + " o" + batches + "o.INPUT__FILE__NAME"
                        + batchId;
                // Spark 4.0.1 stalls on the README's join with a union of ledger and log (a stage that never starts;
                // docs/compatibility.md): the same rows as two joins, one per id list
                case SPARK -> landing.compacted() ? sparkScan + " join (select distinct batch_id from " + ledger
                        + " where table_name = '" + table + "') b on regexp_extract(o.f" + batchId + " union all "
                        + sparkScan + " join (select distinct compaction_id as batch_id from " + database
                        + ".hive_sink_compactions where table_name = '" + table + "') b on regexp_extract(o.f"
                        + batchId : sparkScan + batches + "o.f" + batchId;
                case TRINO -> "select o.id from " + database + "." + table + " o" + batches + "o.\"$path\""
                        + batchId;
            });
        }
        statements.add(dialect == Dialect.TRINO
                ? "select k.topic, k.kafka_partition, max(k.last_offset) from " + ledger + " cross join "
                        + "unnest(kafka_offsets) as k(topic, kafka_partition, first_offset, last_offset, record_count)"
                        + " group by k.topic, k.kafka_partition"
                : "select k.topic, k.kafka_partition, max(k.last_offset) from " + ledger
                        + " lateral view explode(kafka_offsets) o as k group by k.topic, k.kafka_partition");
        return statements;
    }

    /** Each difference from what the matrix landed, keyed {@code avro/ledger/<query>} (the ledger's format). */
    static void compare(List<MatrixReader.Result> results, List<String> formats, String connector,
            Map<String, String> differences) {
        MatrixReader.Result batches = results.get(0);
        if (batches.error() != null) {
            differences.put("avro/ledger/read", batches.error());
            return;
        }
        long records = 0;
        for (List<String> batch : batches.rows()) {
            records += Long.parseLong(batch.get(3));
            int tables = Integer.parseInt(batch.get(4));
            if (!connector.equals(batch.get(1)) || tables < 1 || tables > formats.size() || batch.get(5) == null) {
                differences.put("avro/ledger/batches", "a batch of connector " + connector + " on 1 to "
                        + formats.size()
                        + " tables, with a commit time, expected; read " + batch);
            }
        }
        long landed = (long) MatrixRows.ROWS * formats.size();
        if (records != landed) {
            differences.put("avro/ledger/batches", "expected " + landed + " records, read " + records);
        }
        List<Long> everyId = IntStream.range(0, MatrixRows.ROWS).mapToObj(id -> (long) id).toList();
        for (int i = 0; i < formats.size(); i++) {
            MatrixReader.Result complete = results.get(1 + i);
            List<Long> ids = complete.error() != null ? List.of()
                    : complete.rows().stream().map(row -> Long.parseLong(row.get(0))).sorted().toList();
            if (!ids.equals(everyId)) {
                differences.put("avro/ledger/complete batches of " + formats.get(i), "expected every id once, read "
                        + (complete.error() != null ? complete.error() : ids));
            }
        }
        MatrixReader.Result offsets = results.get(1 + formats.size());
        TreeSet<String> expected = new TreeSet<>();
        for (String format : formats) {
            for (int partition = 0; partition < 2; partition++) {
                expected.add("matrix." + format + "/" + partition + "/" + (MatrixRows.ROWS / 2 - 1));
            }
        }
        String read = offsets.error() != null ? offsets.error() : offsets.rows().stream()
                .map(row -> row.get(0) + "/" + row.get(1) + "/" + row.get(2))
                .collect(Collectors.toCollection(TreeSet::new)).toString();
        if (!expected.toString().equals(read)) {
            differences.put("avro/ledger/offsets", "expected " + expected + ", read " + read);
        }
    }
}
