package io.cdcwire.spark;

/**
 * A protocol's decoder in the JVM tier: the one thing a plugin's Java writes to read its
 * messages fast. The core's {@link MessageDecoding} runs it over a partition of messages and
 * does everything else: the message's place, the pending hand-over of every message it is not
 * sure of to the plugin's Python decoder (which stays the reference), and the last pass that
 * gives each message's events in its place ({@link DecodedInPlace}).
 *
 * <p>An implementation is a public class with a public constructor taking the configuration
 * text its plugin's Python glue makes ({@code JvmCodec.decoder_config}, with the record checks'
 * tables at its root: {@link CheckTables}); one is made per task, so it need not be serializable
 * nor thread-safe.
 */
public interface MessageDecoder {
    /** Field positions of the event row ({@code cdcwire.spark.rows.schema.EVENT_FIELDS}). */
    int KIND = 0, COMMIT_TS = 1, SCHEMA = 2, TABLE = 3, TABLE_ID = 4, COLUMNS = 5, PRE_COLUMNS = 6,
            DDL_TYPE = 7, QUERY = 8, KEY_ONLY = 9, EVENT_FIELDS = 10;

    /**
     * The event row's {@link #EVENT_FIELDS} values (Spark's internal values) of the one event
     * this message value holds, only when it is sure the Python decoder reads the same valid
     * event; null for every other message (the Python decoder reads it, in its place). A
     * protocol whose events are read from the value alone implements this one.
     */
    default Object[] read(byte[] value) {
        return null;
    }

    /**
     * As {@link #read(byte[])}, for a protocol that reads the message key too (debezium takes
     * the handle key from it); {@code key} may be null. The framework calls this one; by
     * default it reads the value alone.
     */
    default Object[] read(byte[] key, byte[] value) {
        return read(value);
    }

    /**
     * The event rows (each as {@link #read(byte[])} gives one) of every event this message
     * holds, in the message's order, only when it is sure the Python decoder reads the same
     * valid events; null for every other message (the Python decoder reads it, in its place).
     * For a protocol whose message packs a batch (open-protocol: several events per message);
     * the framework calls this one, by default the one event {@link #read(byte[], byte[])} reads.
     */
    default Object[][] readAll(byte[] key, byte[] value) {
        Object[] one = read(key, value);
        return one == null ? null : new Object[][] {one};
    }
}
