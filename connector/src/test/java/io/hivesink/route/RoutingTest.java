package io.hivesink.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

class RoutingTest {

    @Test
    void topicNamesBecomeHiveSafeTableNames() {
        assertEquals("shop_orders_v1", TableRouter.hiveSafeName("shop.orders-v1"));
        assertEquals("mixedcase", TableRouter.hiveSafeName("MixedCase"));
        assertEquals("_2024_events", TableRouter.hiveSafeName("2024-events"));
        assertEquals(128, TableRouter.hiveSafeName("x".repeat(300)).length());
    }

    @Test
    void explicitMappingWinsOverTheTopicName() {
        TableRouter router = new TableRouter(Map.of("customers", "dim_customers"));
        assertEquals("dim_customers", router.tableFor("customers"));
        assertEquals("orders_eu", router.tableFor("orders.eu"));
    }

    @Test
    void partitionDirectoriesAreEscapedLikeHive() {
        assertEquals("a%2Fb", HivePaths.escapePathName("a/b"));
        assertEquals("x%3Dy%3A%25", HivePaths.escapePathName("x=y:%"));
        assertEquals("caf\u00e9 ok", HivePaths.escapePathName("caf\u00e9 ok"));
        assertEquals("__HIVE_DEFAULT_PARTITION__", HivePaths.escapePathName(null));
        assertEquals("%01tab%09", HivePaths.escapePathName("\u0001tab\t"));
    }

    static final Schema SCHEMA = SchemaBuilder.struct()
            .field("country", Schema.OPTIONAL_STRING_SCHEMA)
            .field("year", Schema.INT32_SCHEMA)
            .field("day", org.apache.kafka.connect.data.Date.SCHEMA)
            .field("amount", Schema.FLOAT64_SCHEMA)
            .build();

    @Test
    void fieldPartitionerGivesValuesTypesAndPaths() {
        FieldPartitioner partitioner = FieldPartitioner.forSchema(SCHEMA, List.of("country", "year", "day"));
        assertEquals(List.of("country", "year", "day"), partitioner.spec().names());
        assertEquals(List.of("string", "int", "date"), partitioner.spec().hiveTypes());
        Struct value = new Struct(SCHEMA).put("country", "F/R").put("year", 2026)
                .put("day", new java.util.Date(86_400_000L * 20_414)).put("amount", 1.0);
        PartitionValues partition = partitioner.partitionOf(value);
        assertEquals(List.of("F/R", "2026", "2025-11-22"), partition.values());
        assertEquals("country=F%2FR/year=2026/day=2025-11-22", partition.path());

        PartitionValues nullCountry = partitioner.partitionOf(new Struct(SCHEMA).put("year", 1)
                .put("day", new java.util.Date(0)).put("amount", 1.0));
        assertEquals("__HIVE_DEFAULT_PARTITION__", nullCountry.values().get(0));
        assertTrue(nullCountry.path().startsWith("country=__HIVE_DEFAULT_PARTITION__/"));
    }

    @Test
    void partitionFieldsMustExistAndBeScalar() {
        DataException missing = assertThrows(DataException.class,
                () -> FieldPartitioner.forSchema(SCHEMA, List.of("region")));
        assertTrue(missing.getMessage().contains("'region'"), missing.getMessage());
        assertTrue(missing.getMessage().contains("country"), missing.getMessage());
        DataException floating = assertThrows(DataException.class,
                () -> FieldPartitioner.forSchema(SCHEMA, List.of("amount")));
        assertTrue(floating.getMessage().contains("FLOAT64"), floating.getMessage());
    }
}
