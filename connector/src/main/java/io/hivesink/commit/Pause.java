package io.hivesink.commit;

/**
 * The pause of a retry loop. Why one place: each loop decides what an interrupted pause means (give up the wait,
 * keep a lock), and none may swallow the interrupt, which tells the task to stop.
 */
final class Pause {

    private Pause() {
    }

    /**
     * Sleeps.
     *
     * @return false if interrupted: the thread's interrupt flag is set again
     */
    static boolean of(long ms) {
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
