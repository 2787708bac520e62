package io.hivesink.commit;

/** Times the consecutive phases of one commit: each lap is the time since the one before. */
final class PhaseTimer {

    private long last = System.nanoTime();

    /** Milliseconds since the previous lap (or since the timer started). */
    long lapMs() {
        long now = System.nanoTime();
        long ms = (now - last) / 1_000_000;
        last = now;
        return ms;
    }
}
