package io.hivesink.avro.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.hivesink.avro.datum.EncodedDatums;
import io.hivesink.config.AvroCodecs;
import io.hivesink.testing.PythonEnv;

/**
 * Python's fastavro (from PyPI) reads our files, one per codec and level, with the same records in the same order.
 * Needs python3 with venv and network access to PyPI on first run (see {@link PythonEnv}).
 */
class FastavroInteropTest {

    @Test
    void fastavroReadsEveryCodec(@TempDir Path dir) throws Exception {
        TestRows rows = new TestRows(2024, 400, 100, 20_000);
        List<JsonNode> expected = rows.json();

        // file name -> codec, level; each written with many blocks
        Map<String, Object[]> files = new LinkedHashMap<>();
        for (String codec : AvroCodecs.NAMES) {
            files.put(codec + ".avro", new Object[] {codec, -1});
        }
        files.put("deflate-1.avro", new Object[] {AvroCodecs.DEFLATE, 1});
        files.put("zstandard-19.avro", new Object[] {AvroCodecs.ZSTANDARD, 19});
        files.put("xz-0.avro", new Object[] {AvroCodecs.XZ, 0});

        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<String> paths = new ArrayList<>();
        try {
            for (Map.Entry<String, Object[]> file : files.entrySet()) {
                String codec = (String) file.getValue()[0];
                try (ParallelContainerWriter writer = new ParallelContainerWriter(pool, 2, codec,
                        (Integer) file.getValue()[1], 4096, Map.of())) {
                    Path path = dir.resolve(file.getKey());
                    Files.write(path, ContainerFiles.write(writer, TestRows.SCHEMA, rows.datums, null));
                    paths.add(path.toString());
                }
            }
            try (ParallelContainerWriter writer = new ParallelContainerWriter(pool, 2, AvroCodecs.SNAPPY, -1, 4096,
                    Map.of())) {
                Path path = dir.resolve("empty.avro");
                Files.write(path, ContainerFiles.write(writer, TestRows.SCHEMA, new EncodedDatums(), null));
                paths.add(path.toString());
            }
        } finally {
            pool.shutdownNow();
        }

        List<String> command = new ArrayList<>(List.of(PythonEnv.FASTAVRO.python().toString(), script().toString()));
        command.addAll(paths);
        PythonEnv.Result result = PythonEnv.run(command, 120, "");
        assertNotNull(result, "could not start the Python interpreter of the test environment");
        assertEquals(0, result.exitCode(), "fastavro failed:\n" + result.output());

        List<String> lines = result.output().lines().toList();
        int at = 0;
        for (String path : paths) {
            JsonNode header = TestRows.parse(lines.get(at++));
            assertEquals(path, header.get("file").asText(), "file order in the output");
            boolean empty = path.endsWith("empty.avro");
            String codec = empty ? AvroCodecs.SNAPPY : (String) files.get(Path.of(path).getFileName().toString())[0];
            assertEquals(codec, header.get("codec").asText(), path);
            List<JsonNode> want = empty ? List.of() : expected;
            assertEquals(want.size(), header.get("count").asInt(), path);
            for (int i = 0; i < want.size(); i++) {
                assertEquals(want.get(i), TestRows.parse(lines.get(at++)), path + ", record " + i);
            }
        }
        assertEquals(lines.size(), at, "lines left over");
    }

    private static Path script() throws URISyntaxException {
        return Path.of(FastavroInteropTest.class.getResource("read_with_fastavro.py").toURI());
    }
}
