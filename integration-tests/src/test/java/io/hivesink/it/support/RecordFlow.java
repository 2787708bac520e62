package io.hivesink.it.support;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.KafkaProducer;

import io.hivesink.stack.SampleData;

/** Orders produced in the background, 100 every 250 ms, ids from 0, until stopped: records flowing in an outage. */
public final class RecordFlow {

    private final AtomicLong produced = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopped;
    private volatile Exception failure;

    public RecordFlow(KafkaProducer<byte[], byte[]> producer, String topic) {
        thread = new Thread(() -> {
            try {
                while (!stopped) {
                    long from = produced.get();
                    SampleData.produce(producer, topic, SampleData.ORDER, from, from + 100, SampleData::order);
                    produced.addAndGet(100);
                    Thread.sleep(250);
                }
            } catch (Exception e) {
                failure = e;
            }
        }, "outage-producer");
        thread.start();
    }

    public long produced() {
        return produced.get();
    }

    public void stop() throws Exception {
        stopped = true;
        thread.join(30_000);
        if (failure != null) {
            throw failure;
        }
    }
}
