package io.hivesink.stack.hive;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;

import io.hivesink.metastore.Metastore;

/**
 * Reads a landed table the way a query engine does, for metastores no engine here can query: everything it reads
 * is found through the metastore (the table's Avro schema, its partitions and each partition's location), and the
 * rows are the Avro records of the visible files there ({@code _}/{@code .} files are hidden, as to Hive), read
 * with the table's schema as the reader schema, plus the partition columns.
 */
public final class MetastoreTableReader {

    private final Metastore metastore;
    private final FileSystem fs;

    public MetastoreTableReader(Metastore metastore, FileSystem fs) {
        this.metastore = metastore;
        this.fs = fs;
    }

    /** Every row of the table: column name to value (Avro's: strings as {@code Utf8}, so use {@code toString()}). */
    public List<Map<String, Object>> rows(String database, String tableName) {
        Table table = metastore.getTable(database, tableName)
                .orElseThrow(() -> new IllegalStateException("no table " + database + "." + tableName));
        Schema schema = new Schema.Parser().parse(table.getParameters().get("avro.schema.literal"));
        List<Map<String, Object>> rows = new ArrayList<>();
        if (table.getPartitionKeysSize() == 0) {
            read(new Path(table.getSd().getLocation()), schema, Map.of(), rows);
            return rows;
        }
        for (String name : metastore.partitionNames(database, tableName)) {
            List<String> values = new ArrayList<>();
            Map<String, Object> columns = new LinkedHashMap<>();
            String[] parts = name.split("/", -1);
            for (int i = 0; i < parts.length; i++) {
                String value = unescape(parts[i].substring(parts[i].indexOf('=') + 1));
                values.add(value);
                FieldSchema key = table.getPartitionKeys().get(i);
                columns.put(key.getName(), value);
            }
            Partition partition = metastore.getPartition(database, tableName, values)
                    .orElseThrow(() -> new IllegalStateException("partition " + name + " listed but not found"));
            read(new Path(partition.getSd().getLocation()), schema, columns, rows);
        }
        return rows;
    }

    private void read(Path dir, Schema schema, Map<String, Object> partitionColumns,
            List<Map<String, Object>> rows) {
        try {
            for (FileStatus file : fs.listStatus(dir)) {
                String name = file.getPath().getName();
                if (!file.isFile() || name.startsWith("_") || name.startsWith(".")) {
                    continue;
                }
                try (InputStream in = fs.open(file.getPath());
                        DataFileStream<GenericRecord> records =
                                new DataFileStream<>(in, new GenericDatumReader<>(null, schema))) {
                    for (GenericRecord record : records) {
                        Map<String, Object> row = new LinkedHashMap<>();
                        for (Schema.Field field : schema.getFields()) {
                            row.put(field.name(), record.get(field.name()));
                        }
                        row.putAll(partitionColumns);
                        rows.add(row);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + dir, e);
        }
    }

    /** Hive escapes special characters of partition values in names as %XX. */
    private static String unescape(String text) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%' && i + 2 < text.length()) {
                out.append((char) Integer.parseInt(text.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
