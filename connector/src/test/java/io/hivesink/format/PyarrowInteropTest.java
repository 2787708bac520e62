package io.hivesink.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.hivesink.orc.ParallelOrcWriter;
import io.hivesink.parquet.ParallelParquetWriter;
import io.hivesink.testing.EveryTypeRows;
import io.hivesink.testing.PythonEnv;

/**
 * pyarrow (Arrow's C++ Parquet reader and the ORC project's C++ reader, from PyPI) reads our Parquet and ORC files,
 * one per codec, every value of every type as written, rows in order. Needs python3 with venv and network access to
 * PyPI on first run (see {@link PythonEnv}).
 */
class PyarrowInteropTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void pyarrowReadsEveryValueOfEveryFormatAndCodec() throws Exception {
        EveryTypeRows rows = new EveryTypeRows(11, 2_000);
        List<Object> expected = new ArrayList<>();
        for (var record : rows.records) {
            expected.add(JSON.readTree(JSON.writeValueAsString(floatsAsDoubles(
                    EveryTypeRows.canonical(record, EveryTypeRows.SCHEMA)))));
        }
        Map<String, String> codecs = new LinkedHashMap<>();
        List<String> paths = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (String codec : List.of("snappy", "gzip", "zstd", "none")) {
                ParallelParquetWriter writer = new ParallelParquetWriter(pool, 2, codec, true, 128 * 1024, 16 * 1024,
                        Map.of("writer.time.zone", "UTC"));
                Path path = dir.resolve(codec + writer.extension());
                try (OutputStream out = Files.newOutputStream(path)) {
                    writer.write(EveryTypeRows.SCHEMA, EveryTypeRows.SCHEMA, rows.datums, out);
                }
                paths.add(path.toString());
                codecs.put(path.toString(), codec.equals("none") ? "UNCOMPRESSED" : codec.toUpperCase(Locale.ROOT));
            }
            for (String codec : List.of("snappy", "zlib", "zstd", "none")) {
                ParallelOrcWriter writer = new ParallelOrcWriter(pool, 2, codec, 128 * 1024, Map.of());
                Path path = dir.resolve(codec + writer.extension());
                try (OutputStream out = Files.newOutputStream(path)) {
                    writer.write(EveryTypeRows.SCHEMA, EveryTypeRows.SCHEMA, rows.datums, out);
                }
                paths.add(path.toString());
                codecs.put(path.toString(), codec.equals("none") ? "UNCOMPRESSED" : codec.toUpperCase(Locale.ROOT));
            }
        } finally {
            pool.shutdownNow();
        }

        List<String> command = new ArrayList<>(List.of(PythonEnv.PYARROW.python().toString(), script().toString()));
        command.addAll(paths);
        PythonEnv.Result result = PythonEnv.run(command, 300, "");
        assertNotNull(result, "could not start the Python interpreter of the test environment");
        assertEquals(0, result.exitCode(), "pyarrow failed:\n" + result.output());

        List<String> lines = result.output().lines().filter(line -> line.startsWith("{")).toList();
        int at = 0;
        for (String path : paths) {
            JsonNode header = JSON.readTree(lines.get(at++));
            assertEquals(path, header.get("file").asText(), "file order in the output");
            assertEquals(codecs.get(path), header.get("codec").asText(), path);
            assertEquals(rows.records.size(), header.get("rows").asInt(), path);
            assertTrue(header.get("row_groups").asInt() > 1, "several row groups or stripes: " + header);
            for (int row = 0; row < rows.records.size(); row++) {
                assertEquals(expected.get(row), lowerCaseNames(JSON.readTree(lines.get(at++))), path + ", row " + row);
            }
        }
    }

    /** A row with its fields named in lower case: ORC files keep a struct field's case ({@code orc.OrcSchemas}). */
    private static JsonNode lowerCaseNames(JsonNode node) {
        if (node.isObject()) {
            com.fasterxml.jackson.databind.node.ObjectNode out = JSON.createObjectNode();
            node.properties().forEach(e -> out.set(e.getKey().toLowerCase(Locale.ROOT),
                    lowerCaseNames(e.getValue())));
            return out;
        }
        if (node.isArray()) {
            com.fasterxml.jackson.databind.node.ArrayNode out = JSON.createArrayNode();
            node.forEach(element -> out.add(lowerCaseNames(element)));
            return out;
        }
        return node;
    }

    /** Python has only doubles: a float column's value is the double of the float. */
    private static Object floatsAsDoubles(Object value) {
        if (value instanceof Float f) {
            return (double) f;
        }
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> out = new LinkedHashMap<>();
            map.forEach((k, v) -> out.put(k, floatsAsDoubles(v)));
            return out;
        }
        if (value instanceof List<?> list) {
            return list.stream().map(PyarrowInteropTest::floatsAsDoubles).toList();
        }
        return value;
    }

    private static Path script() throws URISyntaxException, IOException {
        return Path.of(PyarrowInteropTest.class.getResource("read_with_pyarrow.py").toURI());
    }
}
