package io.hivesink.it.readers;

/**
 * One landing of the matrix's topics, read by the {@link Battery}: its database, the connector that landed it, and
 * whether its tables' partitions were compacted (then the README's complete-batches query joins on the compaction
 * log's ids as well as the ledger's).
 */
record Landing(String database, String connector, boolean compacted) {

    @Override
    public String toString() {
        return database + (compacted ? " (compacted)" : "");
    }
}
