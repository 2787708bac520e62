package io.hivesink.metastore;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out, once per task, whether the metastore can tell Trino the fields of the connector's Avro tables, and says
 * what to set where it cannot.
 *
 * <p>Why: Trino reads the columns of an Avro table whose parameters hold {@code avro.schema.literal} (every table
 * hive-sink makes) not from the table but from the metastore's {@code get_fields}, which has the metastore read the
 * schema through the table's SerDe. A standalone metastore, as Trino users commonly run one, has no SerDe and answers
 * "Storage schema reading not supported": every query of the table fails. Hive and Spark read the table's own
 * columns and are not affected, so this warns and does not stop the task. Parquet and ORC tables are not asked.
 */
final class AvroFieldsCheck {

    private static final Logger log = LoggerFactory.getLogger(AvroFieldsCheck.class);

    private final Metastore metastore;
    private boolean checked;
    private String refusal;

    AvroFieldsCheck(Metastore metastore) {
        this.metastore = metastore;
    }

    /** Asks the metastore for the fields of an Avro table, the first time only; warns if it cannot answer. */
    synchronized void check(String database, String table) {
        if (checked) {
            return;
        }
        try {
            refusal = metastore.fieldsRefusal(database, table).orElse(null);
        } catch (RuntimeException e) {
            log.debug("Could not ask the metastore for the fields of {}.{} (asked again at the next table): {}",
                    database, table, e.getMessage());
            return; // the metastore did not answer either way: not the table's concern, ask again later
        }
        checked = true;
        if (refusal != null) {
            log.warn("Trino cannot read Avro table {}.{} (nor this connector's other Avro tables) through {}: Trino "
                    + "asks the metastore for an Avro table's fields, and it answers \"{}\". On a standalone "
                    + "metastore set metastore.storage.schema.reader.impl="
                    + "org.apache.hadoop.hive.metastore.SerDeStorageSchemaReader in metastore-site.xml and put the "
                    + "jars that hold it and Hive's SerDes (hive-metastore, hive-serde and hive-exec of its Hive "
                    + "release) on its class path; or land the tables Trino reads with format=parquet or format=orc. "
                    + "Hive and Spark read the tables as they are.",
                    database, table, metastore.describe(), refusal);
        }
    }

    /** Null if the metastore answered, or has not been asked yet; else its answer. */
    synchronized String refusal() {
        return refusal;
    }
}
