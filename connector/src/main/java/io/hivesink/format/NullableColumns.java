package io.hivesink.format;

import java.util.List;

import org.apache.avro.Schema;

/**
 * How a columnar file sees an Avro field: a union of null and one type is a nullable column of that type, a union of
 * one type is that type; Hive has no column for any other union.
 */
public final class NullableColumns {

    private NullableColumns() {
    }

    /** Whether the field's values may be null: a union with a null branch. */
    public static boolean nullable(Schema schema) {
        return schema.getType() == Schema.Type.UNION
                && schema.getTypes().stream().anyMatch(branch -> branch.getType() == Schema.Type.NULL);
    }

    /**
     * The branch of a union with null that is not null, or of a union of one type; the schema itself if it is not a
     * union.
     */
    public static Schema nonNull(Schema schema) {
        if (schema.getType() != Schema.Type.UNION) {
            return schema;
        }
        List<Schema> branches = schema.getTypes();
        if (branches.size() == 1 && branches.get(0).getType() != Schema.Type.NULL) {
            return branches.get(0);
        }
        if (branches.size() == 2) {
            if (branches.get(0).getType() == Schema.Type.NULL) {
                return branches.get(1);
            }
            if (branches.get(1).getType() == Schema.Type.NULL) {
                return branches.get(0);
            }
        }
        throw new IllegalArgumentException("Hive reads only unions of null and one type, not " + schema);
    }
}
