package io.hivesink.input;

import org.apache.kafka.connect.errors.DataException;

/** The schema registry does not know the schema id a record names: the record cannot be read. */
public final class UnknownSchemaException extends DataException {

    private final int schemaId;

    public UnknownSchemaException(int schemaId, String message) {
        super(message);
        this.schemaId = schemaId;
    }

    public int schemaId() {
        return schemaId;
    }
}
