package io.cdcwire.spark;

import java.math.BigDecimal;
import java.util.ArrayDeque;

/**
 * A {@link BatchEncoder} for a format that writes one message per row event (debezium, avro): each
 * message closes on its own row, so no batch is ever open and a row Java leaves goes to Python
 * alone. What is left to write is {@link #row}, which calls {@link #close} with the row's key and
 * value (a null value: a tombstone) and returns true, or returns false. Resolved events and every
 * event Java never encodes are the Python encoder's; Python's encoder holds no batch after them.
 *
 * <p>Why a base class: the rest of the contract ({@link #leave}, {@link #resumes}, {@link #poll}...)
 * is the same for every such format, and each of them had its own copy.
 */
public abstract class RowMessages implements BatchEncoder {
    private final ArrayDeque<Message> closed = new ArrayDeque<>();

    /** The row's message, closed on it (one event). */
    protected final void close(byte[] key, byte[] value) {
        closed.add(new Message(key, value, 1));
    }

    @Override
    public void start(String topic, int partition) {
        closed.clear();
    }

    /** False: a resolved event is the Python encoder's (most such formats write none, or a message of its own). */
    @Override
    public boolean watermark(BigDecimal commitTs, long now) {
        return false;
    }

    @Override
    public boolean leave(String kind) {
        return true; // nothing is ever open: Python's message of this event stands alone
    }

    @Override
    public boolean resumes(String kind) {
        return true; // Python's encoder holds no batch either
    }

    @Override
    public void finish() {
    }

    @Override
    public Message poll() {
        return closed.poll();
    }
}
