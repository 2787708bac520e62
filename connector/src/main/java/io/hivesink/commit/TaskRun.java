package io.hivesink.commit;

/**
 * One run of a connector's task: which task it is and the instance id that tells this run from an earlier one (or
 * a zombie) of the same task.
 */
public record TaskRun(String connector, int task, String instance) {

    /** For messages: {@code task 2 of orders-to-hive}. */
    @Override
    public String toString() {
        return "task " + task + " of " + connector;
    }
}
