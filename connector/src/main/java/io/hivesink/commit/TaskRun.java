package io.hivesink.commit;

/**
 * One run of a connector's task: which task it is and the instance id that tells this run from an earlier one (or
 * a zombie) of the same task.
 *
 * @param connectorTable the connector's name made Hive-safe, part of the names of its state tables and staging
 */
public record TaskRun(String connector, String connectorTable, int task, String instance) {

    /** For messages: {@code task 2 of orders-to-hive}. */
    @Override
    public String toString() {
        return "task " + task + " of " + connector;
    }
}
