package io.cdcwire.spark;

import java.math.BigDecimal;
import java.util.List;

/**
 * A protocol's encoder in the JVM tier for a format that packs several events into one message
 * (open-protocol's length-prefixed documents, craft's columnar batch): the counterpart of
 * {@link MessageEncoder} for batches. The core's {@link BatchEncoding} feeds it the routed,
 * sorted events of one topic-partition in order and places each message it closes on the row
 * of the message's last event; the rows before it in that message are marked as carried by it.
 *
 * <p>Why a contract of its own: a batch's boundaries depend on the events after it (a batch
 * closes when the next row would not fit), and the Python encoder (the reference) must close
 * its batches at exactly the same events. So Java either makes a whole message, closed where
 * the Python encoder closes it, or leaves every event of the open batch to Python: when
 * {@link #row} or {@link #watermark} return false, the events offered since the last message
 * closed and this one go to the Python encoder, and so does every later event of the
 * topic-partition until {@link #resumes} says the Python encoder's batch is empty again.
 *
 * <p>An implementation is a public class with a public constructor taking its configuration
 * text (as a MessageEncoder's); one is made per task and {@link #start}ed per topic-partition.
 */
public interface BatchEncoder {
    /** A message the encoder closed: its key and value, and the number of events it carries
     * (the oldest events offered and taken that no earlier message carries). */
    final class Message {
        public final byte[] key;
        public final byte[] value;
        public final int events;

        public Message(byte[] key, byte[] value, int events) {
            this.key = key;
            this.value = value;
            this.events = events;
        }
    }

    /** The events of a topic-partition follow: no batch is open. Also called after Python took over
     * and {@link #resumes} said Java may go on. */
    void start(String topic, int partition);

    /** Offer a resolved event; false: Java is not sure of it (it and the open batch go to Python). */
    boolean watermark(BigDecimal commitTs, long now);

    /**
     * Offer one insert, update or delete ({@code half} 0, or 1/2 for the delete/insert halves of a
     * split update; {@code tableId} null where the row has none); false: Java is not sure of it or
     * of where the open batch closes (it and the open batch go to Python).
     */
    boolean row(String kind, BigDecimal commitTs, String schema, String table, Long tableId,
                List<ColumnEntry> columns, List<ColumnEntry> preColumns, Boolean handleKeyOnly, byte half, long now);

    /**
     * An event Java never encodes (a DDL event, an unknown kind): it goes to Python. The encoder
     * closes what the Python encoder closes before such an event and returns true when Python's
     * batch is empty after it (Java goes on with the next event), false when it is not (the open
     * batch goes to Python too, as for a refused row).
     */
    boolean leave(String kind);

    /**
     * Whether this encoder makes DDL events' messages itself ({@link #ddl}, plugin API 1.17): an
     * encoder whose Python twin keeps state a DDL changes (simple's table schemas) must, or leave
     * every partition with a DDL to Python. By default a DDL is Python's ({@link #leave}).
     */
    default boolean encodesDdl() {
        return false;
    }

    /**
     * 1.17, where {@link #encodesDdl}: offer a DDL event ({@code ddlType} the DDLType name the event
     * row holds, {@code query} its statement, either may be null); false: Java is not sure of it (it
     * and the open batch go to Python, as for a refused row).
     */
    default boolean ddl(BigDecimal commitTs, String schema, String table, String ddlType, String query, long now) {
        return false;
    }

    /**
     * 1.18: called when this encoder returned false (Java leaves events to Python): the state the
     * Python encoder should continue from, as a text its Python twin adopts (the core hands it, on
     * the first row left to Python, to the encoder's {@code adopt_handed_state}); null (the default):
     * none, the Python encoder starts afresh. An encoder that hands its state over can give each
     * message as it makes it instead of holding a partition's until it ends (simple's).
     */
    default String handOver() {
        return null;
    }

    /** While Python encodes: true when, after the Python encoder took an event of this kind, its
     * batch is empty (the next event may be Java's again). */
    boolean resumes(String kind);

    /** The topic-partition ends: close the open batch. */
    void finish();

    /** The next message closed and not yet taken, or null. */
    Message poll();
}
