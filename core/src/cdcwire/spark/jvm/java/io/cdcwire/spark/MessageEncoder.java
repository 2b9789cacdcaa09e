package io.cdcwire.spark;

import java.math.BigDecimal;
import java.util.List;

/**
 * A protocol's encoder in the JVM tier: the one thing a plugin's Java writes to make its
 * messages fast. The core's {@link MessageEncoding} runs it over routed, sorted event copies
 * (Spark's internal rows) and does everything else: reading the row's fields and images,
 * nulling the images of a copy it encoded, and leaving every copy it returns null for to the
 * plugin's Python encoder (the reference), in its place.
 *
 * <p>An implementation is a public class with a public constructor taking the configuration
 * text its plugin's Python glue makes ({@code JvmCodec.encoder_config}, with the record checks'
 * tables at its root: {@link CheckTables}, read by {@link RecordChecks}); one is made per task.
 * It must give the Python encoder's bytes, byte for byte, or null.
 */
public interface MessageEncoder {
    /** The message value of a resolved event (its watermark) at {@code commitTs}, or null. */
    byte[] watermark(BigDecimal commitTs, long now);

    /**
     * The message value of one insert, update or delete row (its images as {@link ColumnEntry}s,
     * {@code preColumns} null where it has none; {@code half} 0, or 1/2 for the delete/insert
     * halves of a split update), or null: the Python encoder encodes it. {@code now}: the clock (ms).
     */
    byte[] row(String kind, BigDecimal commitTs, String schema, String table, List<ColumnEntry> columns,
               List<ColumnEntry> preColumns, Boolean handleKeyOnly, byte half, long now);
}
