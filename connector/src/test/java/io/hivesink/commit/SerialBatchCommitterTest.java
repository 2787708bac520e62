package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.Stream;

import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.hivesink.avro.container.ParallelContainerWriter;
import io.hivesink.batch.BatchBuffer;
import io.hivesink.batch.TableLayouts;
import io.hivesink.fs.StagingArea;
import io.hivesink.metastore.HiveTables;
import io.hivesink.metastore.Metastore;
import io.hivesink.route.TableRouter;

/** The commit steps against a real local FileSystem; the metastore is an in-memory fake of the narrow seam. */
class SerialBatchCommitterTest {

    static final Schema EVENT = SchemaBuilder.struct().name("Event")
            .field("id", Schema.INT64_SCHEMA)
            .field("kind", Schema.STRING_SCHEMA)
            .build();

    @TempDir
    Path dir;

    @Test
    void filesLandInPartitionDirectoriesAndPartitionsAreRegisteredOnce() throws Exception {
        FakeMetastore metastore = new FakeMetastore();
        Fixture fixture = new Fixture(metastore);
        for (long offset = 0; offset < 6; offset++) {
            fixture.buffer.add(event(offset, offset % 2 == 0 ? "a" : "b/c"), 0);
        }
        CommitSummary first = fixture.committer.commit(fixture.buffer.drain());
        assertEquals(6, first.records());
        assertEquals(2, first.files());
        assertEquals(2, first.newPartitions());
        assertEquals(1, metastore.addPartitionCalls, "one add_partitions call per table");
        assertEquals(List.of("kind=a", "kind=b%2Fc"), metastore.partitionNames("db", "events"));

        Path table = dir.resolve("warehouse/db.db/events");
        assertEquals(List.of(0L, 2L, 4L), ids(single(table.resolve("kind=a"))));
        assertEquals(List.of(1L, 3L, 5L), ids(single(table.resolve("kind=b%2Fc"))));
        try (Stream<Path> staged = Files.walk(dir.resolve("staging"))) {
            assertFalse(staged.anyMatch(p -> p.toString().endsWith(".avro")), "staging is left empty");
        }

        fixture.buffer.add(event(6, "a"), 0);
        CommitSummary second = fixture.committer.commit(fixture.buffer.drain());
        assertEquals(0, second.newPartitions());
        assertEquals(1, metastore.addPartitionCalls, "known partitions are not sent again");
        try (Stream<Path> files = Files.list(table.resolve("kind=a"))) {
            assertEquals(2, files.filter(p -> p.toString().endsWith(".avro")).count());
        }
    }

    @Test
    void aRetriedBatchLandsEachFileOnce() throws Exception {
        FakeMetastore metastore = new FakeMetastore();
        metastore.failNextAddPartitions = true;
        Fixture fixture = new Fixture(metastore);
        fixture.buffer.add(event(0, "a"), 0);
        fixture.buffer.add(event(1, "b"), 0);
        var batch = fixture.buffer.drain();
        assertThrows(RuntimeException.class, () -> fixture.committer.commit(batch));
        CommitSummary retried = fixture.committer.commit(batch);
        assertEquals(2, retried.newPartitions());
        Path table = dir.resolve("warehouse/db.db/events");
        assertEquals(List.of(0L), ids(single(table.resolve("kind=a"))));
        assertEquals(List.of(1L), ids(single(table.resolve("kind=b"))));
    }

    @Test
    void anExistingTableWithAnotherSchemaIsAClearError() {
        FakeMetastore metastore = new FakeMetastore();
        Fixture fixture = new Fixture(metastore);
        fixture.buffer.add(event(0, "a"), 0);
        fixture.committer.commit(fixture.buffer.drain());

        Schema other = SchemaBuilder.struct().name("Event").field("id", Schema.STRING_SCHEMA)
                .field("kind", Schema.STRING_SCHEMA).build();
        Fixture restarted = new Fixture(metastore);
        restarted.buffer.add(new SinkRecord("events", 0, null, null, other,
                new Struct(other).put("id", "x").put("kind", "a"), 1), 0);
        ConnectException e = assertThrows(ConnectException.class,
                () -> restarted.committer.commit(restarted.buffer.drain()));
        assertTrue(e.getMessage().contains("db.events has a different Avro schema"), e.getMessage());
    }

    private static SinkRecord event(long offset, String kind) {
        return new SinkRecord("events", 0, null, null, EVENT, new Struct(EVENT).put("id", offset).put("kind", kind),
                offset);
    }

    private static Path single(Path partitionDir) throws IOException {
        try (Stream<Path> files = Files.list(partitionDir)) {
            List<Path> avro = files.filter(p -> p.getFileName().toString().endsWith(".avro")).toList();
            assertEquals(1, avro.size(), avro.toString());
            return avro.get(0);
        }
    }

    private static List<Long> ids(Path file) throws IOException {
        List<Long> ids = new ArrayList<>();
        try (DataFileReader<GenericRecord> reader = new DataFileReader<>(file.toFile(), new GenericDatumReader<>())) {
            reader.forEach(r -> ids.add((Long) r.get("id")));
        }
        return ids;
    }

    private final class Fixture {
        final BatchBuffer buffer;
        final SerialBatchCommitter committer;

        Fixture(FakeMetastore metastore) {
            FileSystem fs;
            try {
                fs = FileSystem.getLocal(new Configuration());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            String warehouse = "file://" + dir.resolve("warehouse");
            buffer = new BatchBuffer(new TableRouter(Map.of()), new TableLayouts("db", List.of("kind")),
                    "test-t0-" + System.nanoTime(), ForkJoinPool.commonPool(), 4);
            committer = new SerialBatchCommitter(new HiveTables(metastore, "db", warehouse), metastore,
                    new StagingArea(fs, new org.apache.hadoop.fs.Path("file://" + dir.resolve("staging"))),
                    new ParallelContainerWriter(ForkJoinPool.commonPool(), 2, "deflate", -1, 1024));
        }
    }

    /** Holds databases, tables and partitions in memory, like the metastore would. */
    static final class FakeMetastore implements Metastore {
        final Map<String, Table> tables = new HashMap<>();
        final Map<String, List<String>> partitions = new HashMap<>();
        final List<String> databases = new ArrayList<>();
        int addPartitionCalls;
        boolean failNextAddPartitions;

        @Override
        public boolean databaseExists(String database) {
            return databases.contains(database);
        }

        @Override
        public void createDatabase(String database, String locationUri) {
            databases.add(database);
        }

        @Override
        public Optional<Table> getTable(String database, String table) {
            return Optional.ofNullable(tables.get(database + "." + table)).map(Table::new);
        }

        @Override
        public void createTable(Table table) {
            tables.putIfAbsent(table.getDbName() + "." + table.getTableName(), new Table(table));
        }

        @Override
        public List<String> partitionNames(String database, String table) {
            return new ArrayList<>(partitions.getOrDefault(database + "." + table, List.of()));
        }

        @Override
        public void addPartitions(List<Partition> added) {
            if (failNextAddPartitions) {
                failNextAddPartitions = false;
                throw new io.hivesink.metastore.MetastoreException("injected", null);
            }
            addPartitionCalls++;
            for (Partition p : added) {
                Table table = tables.get(p.getDbName() + "." + p.getTableName());
                StringBuilder name = new StringBuilder();
                for (int i = 0; i < p.getValues().size(); i++) {
                    name.append(i == 0 ? "" : "/").append(table.getPartitionKeys().get(i).getName()).append('=')
                            .append(io.hivesink.route.HivePaths.escapePathName(p.getValues().get(i)));
                }
                List<String> names = partitions.computeIfAbsent(p.getDbName() + "." + p.getTableName(),
                        k -> new ArrayList<>());
                if (!names.contains(name.toString())) {
                    names.add(name.toString());
                }
            }
        }

        @Override
        public void close() {
        }
    }
}
