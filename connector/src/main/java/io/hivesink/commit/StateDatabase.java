package io.hivesink.commit;

import java.util.List;
import java.util.function.Function;

import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.hivesink.metastore.Metastore;
import io.hivesink.metastore.MetastoreException;

/**
 * Picks the database of a connector's state tables, so that users' databases hold only their tables: the configured
 * one ({@code state.database}), created if missing, unless the connector's state is already elsewhere. Before that
 * key existed the state was kept in the tables' database; such a deployment goes on using it there, and the log
 * says how to move it, since moving tables under running tasks would break their fencing. Every task of a
 * connector decides alike: the state is found where it is, and created in the configured database only when it is
 * nowhere.
 */
public final class StateDatabase {

    private static final Logger log = LoggerFactory.getLogger(StateDatabase.class);

    private StateDatabase() {}

    /**
     * The connector's state tables, in the database they are in or will be created in.
     *
     * @param tablesIn the state tables of this connector in a given database
     * @param warehouseUri where a created database gets its directory
     */
    public static StateTables locate(Metastore metastore, String configured, String tablesDatabase,
            String warehouseUri, Function<String, StateTables> tablesIn) {
        StateTables wanted = tablesIn.apply(configured);
        if (configured.equals(tablesDatabase)) {
            return wanted;
        }
        boolean wantedExists = metastore.databaseExists(configured);
        if (wantedExists && !wanted.tableNamesIn(configured).isEmpty()) {
            return wanted;
        }
        if (metastore.databaseExists(tablesDatabase)) {
            List<String> earlier = wanted.tableNamesIn(tablesDatabase);
            if (!earlier.isEmpty()) {
                log.info("The state of this connector is in database {} ({}), where hive-sink kept it before "
                        + "state.database existed, not in {}; it stays there. To move it: stop the connector, run "
                        + "ALTER TABLE {}.<table> RENAME TO {}.<table> for each of those tables, then start it again.",
                        tablesDatabase, String.join(", ", earlier), configured, tablesDatabase, configured);
                return tablesIn.apply(tablesDatabase);
            }
        }
        if (!wantedExists) {
            try {
                metastore.createDatabase(configured, warehouseUri + "/" + configured + ".db");
            } catch (MetastoreException e) {
                throw new ConnectException("Could not create the database " + configured + " for the connector's "
                        + "own state tables: " + e.getMessage() + ". Create it (CREATE DATABASE " + configured
                        + "), or set state.database to a database the connector's user may create tables in.", e);
            }
            log.info("Created database {} for the state tables of hive-sink connectors (state.database)",
                    configured);
        }
        return wanted;
    }
}
