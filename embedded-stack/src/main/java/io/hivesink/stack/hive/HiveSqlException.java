package io.hivesink.stack.hive;

/** Hive rejected a statement; {@link #getMessage()} is Hive's message. The {@link HiveSql} session stays usable. */
public class HiveSqlException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String sql;

    public HiveSqlException(String sql, String hiveMessage) {
        super(hiveMessage);
        this.sql = sql;
    }

    /** The statement that failed. */
    public String sql() {
        return sql;
    }
}
