package io.hivesink.hivechild;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * Creates a metastore's whole schema (the transaction and lock tables too, which DataNucleus auto-create leaves out)
 * by running that release's own Derby script. Needs nothing of Hive, so every metastore child can use it.
 */
final class DerbySchema {

    private DerbySchema() {
    }

    /**
     * Runs the script's statements, which end with a semicolon at the end of a line, in order; unless the database
     * holds the schema already (a metastore restarted on its database keeps its tables, and its locks).
     */
    static void create(String jdbcUrl, Path script) throws Exception {
        StringBuilder statement = new StringBuilder();
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
                Statement sql = connection.createStatement()) {
            try (ResultSet version = connection.getMetaData().getTables(null, null, "VERSION", null)) {
                if (version.next()) {
                    return;
                }
            }
            for (String line : Files.readAllLines(script, StandardCharsets.UTF_8)) {
                String trimmed = line.strip();
                if (trimmed.isEmpty() || trimmed.startsWith("--")) {
                    continue;
                }
                statement.append(line).append('\n');
                if (trimmed.endsWith(";")) {
                    String text = statement.toString().strip();
                    sql.execute(text.substring(0, text.length() - 1));
                    statement.setLength(0);
                }
            }
        }
    }
}
