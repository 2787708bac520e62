package io.hivesink.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;

import io.hivesink.metastore.InMemoryMetastore;

class StateDatabaseTest {

    private final InMemoryMetastore metastore = new InMemoryMetastore();

    private StateTables locate(String tablesDatabase) {
        StateTables.Deployment deployment = new StateTables.Deployment("orders", "orders", tablesDatabase);
        return StateDatabase.locate(metastore, "hive_sink", tablesDatabase, "file:///warehouse",
                in -> new StateTables(metastore, in, deployment, "file:///staging/orders/state", "orders-t0-x",
                        0));
    }

    private List<String> tablesIn(String database) {
        return metastore.tables.values().stream().filter(t -> t.getDbName().equals(database))
                .map(t -> t.getTableName()).sorted().toList();
    }

    @Test
    void aNewConnectorKeepsItsStateInADatabaseOfItsOwnCreatedIfMissing() {
        metastore.createDatabase("shop", "file:///warehouse/shop.db");
        StateTables states = locate("shop");
        states.readOrCreate(0);
        states.readOrCreate(1);

        assertEquals("hive_sink", states.database());
        assertTrue(metastore.databaseExists("hive_sink"));
        assertEquals(List.of("hive_sink_state_orders_0", "hive_sink_state_orders_1"), tablesIn("hive_sink"));
        assertEquals(List.of(), tablesIn("shop"), "the user's database holds none of the connector's state");
        assertEquals("hive_sink", locate("shop").database(), "found there at the next start");
    }

    @Test
    void stateKeptInTheTablesDatabaseBeforeStaysThereAndANewTaskJoinsIt() {
        metastore.createDatabase("shop", "file:///warehouse/shop.db");
        StateTables.Deployment deployment = new StateTables.Deployment("orders", "orders", "shop");
        StateTables earlier = new StateTables(metastore, "shop", deployment, "file:///staging/orders/state", "old",
                0);
        earlier.readOrCreate(0);
        metastore.tables.get("shop.hive_sink_state_orders_0").getParameters().remove(StateTables.TABLES_DATABASE);

        StateTables states = locate("shop");
        states.readOrCreate(1);

        assertEquals("shop", states.database());
        assertEquals(List.of("hive_sink_state_orders_0", "hive_sink_state_orders_1"), tablesIn("shop"));
        assertFalse(metastore.databaseExists("hive_sink"), "nothing made in the new place");
        assertEquals(2, states.readAll().size(), "the table without the tables' database is read as this one's");
    }

    @Test
    void twoConnectorsWhoseNamesAreOneInHiveAreRefusedNamingBoth() {
        StateTables first = new StateTables(metastore, "hive_sink", new StateTables.Deployment("orders-to-hive",
                "orders_to_hive", "shop"), "file:///staging/orders_to_hive/state", "orders_to_hive-t0-a",
                0);
        first.readOrCreate(0);
        StateTables second = new StateTables(metastore, "hive_sink", new StateTables.Deployment("orders_to_hive",
                "orders_to_hive", "shop"), "file:///staging/orders_to_hive/state", "orders_to_hive-t0-b",
                0);
        ConnectException e = assertThrows(ConnectException.class, () -> second.readOrCreate(0));
        assertTrue(e.getMessage().contains("'orders-to-hive' and 'orders_to_hive'")
                && e.getMessage().contains("hive_sink.hive_sink_state_orders_to_hive_0"), e.getMessage());
        assertThrows(ConnectException.class, second::readAll, "nor are the states read when it claims");
        assertEquals(1, first.readAll().size(), "the first keeps its state");
    }

    @Test
    void aConnectorOfTheSameNameLandingInAnotherDatabaseIsRefusedNamingBoth() {
        metastore.createDatabase("shop_dev", "file:///warehouse/shop_dev.db");
        locate("shop_dev").readOrCreate(0);

        StateTables other = locate("shop_staging");
        ConnectException e = assertThrows(ConnectException.class, () -> other.readOrCreate(0));
        assertTrue(e.getMessage().startsWith("The state table hive_sink.hive_sink_state_orders_0 belongs to a "
                + "connector named 'orders' that lands in database shop_dev, but this one lands in shop_staging. "
                + "If two deployments share the name in this metastore, rename one, or give each a state.database "
                + "of its own."), e.getMessage());
        assertThrows(ConnectException.class, other::readAll);
    }
}
