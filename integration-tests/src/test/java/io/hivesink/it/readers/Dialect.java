package io.hivesink.it.readers;

import io.hivesink.it.readers.MatrixColumn.Kind;

/**
 * How one engine's SQL spells what the battery asks: literals (always a cast of text, so that every engine folds
 * the same constant and can push it down), text of a value, sizes and elements of arrays and maps.
 */
enum Dialect {
    HIVE, SPARK, TRINO;

    /** The engine's name of a column type, for casts. */
    String type(Kind kind) {
        boolean trino = this == TRINO;
        return switch (kind) {
            case INT -> trino ? "integer" : "int";
            case BIGINT -> "bigint";
            case FLOAT -> trino ? "real" : "float";
            case DOUBLE -> "double";
            case BOOLEAN -> "boolean";
            case STRING -> trino ? "varchar" : "string";
            case DECIMAL_9_2 -> "decimal(9,2)";
            case DECIMAL_38_6 -> "decimal(38,6)";
            case DATE -> "date";
            case TIMESTAMP -> trino ? "timestamp(3)" : "timestamp";
            case COMPLEX -> throw new IllegalArgumentException("no literal of a complex type");
        };
    }

    /** A literal of the column's type. */
    String literal(MatrixColumn column, Object value) {
        String text = MatrixColumn.text(value);
        if (column.kind() == Kind.STRING) {
            return "'" + text + "'";
        }
        return "cast('" + text + "' as " + type(column.kind()) + ")";
    }

    /** A string or binary value as upper-case hex of its bytes (UTF-8 for strings). */
    String hex(String expression, boolean binary) {
        if (this == TRINO) {
            return binary ? "to_hex(" + expression + ")" : "to_hex(to_utf8(" + expression + "))";
        }
        return "hex(" + expression + ")";
    }

    /** A date, timestamp or other scalar as the engine's text of it (Trino's client protocol gives text already). */
    String text(String expression) {
        return this == TRINO ? expression : "cast(" + expression + " as string)";
    }

    /** The number of elements of an array or entries of a map; NULL for NULL. */
    String size(String expression) {
        return this == TRINO ? "cardinality(" + expression + ")"
                : "case when " + expression + " is null then null else size(" + expression + ") end";
    }

    /** The first element of an array; NULL if it is empty or NULL. */
    String first(String expression) {
        return switch (this) {
            case HIVE -> expression + "[0]";
            case SPARK -> "try_element_at(" + expression + ", 1)";
            case TRINO -> "element_at(" + expression + ", 1)";
        };
    }

    /** A map's value at a string key; NULL if there is none. */
    String at(String expression, String key) {
        return switch (this) {
            case HIVE -> expression + "['" + key + "']";
            case SPARK -> "try_element_at(" + expression + ", '" + key + "')";
            case TRINO -> "element_at(" + expression + ", '" + key + "')";
        };
    }
}
