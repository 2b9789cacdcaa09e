package io.cdcwire.spark;

import java.util.Iterator;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * A protocol's messages made over Spark's internal rows by the plugin's {@link MessageEncoder}
 * (made in each task from its class name and configuration text): a partition of routed, sorted
 * event copies in, the same rows out with their message value appended (binary, last field)
 * and their images ({@code columns}, {@code pre_columns}) nulled where the value is set.
 *
 * <p>Why over internal rows, not as a Java UDF: a UDF is handed external {@code Row}s, so
 * Spark converts every nested image into Scala objects first (a UDF tier measured no faster
 * than Python's); here the images are read where they lie ({@code getArray(i).getStruct(j, n)}).
 * And it runs after the sort, once per copy in the order the encoding stage writes them, so
 * the shuffle carries the events as they are.
 *
 * <p>Resolved events get their watermark message here too. A row it leaves null (DDL events,
 * count rows, rows the record checks are not sure of, a message over max-message-bytes) keeps
 * its images: the encoding stage encodes it in Python, in its place. Made on the driver with the sink's configuration text
 * (the plugin's Python glue makes it), the input's schema and the {@code ts} clock in ms (negative: the wall
 * clock, read per row as the Python encoder reads it per message).
 */
public final class MessageEncoding implements FlatMapFunction<Iterator<InternalRow>, InternalRow> {
    private static final long serialVersionUID = 1L;

    private final String encoderClass;
    private final String configText;
    private final StructType input;
    private final long clock;
    private final EventFields f;

    public MessageEncoding(String encoderClass, String configText, StructType input, long clock) {
        this.encoderClass = encoderClass;
        this.configText = configText;
        this.input = input;
        this.clock = clock;
        f = new EventFields(input);
    }

    /** The output's schema: the input's, then the value. */
    public static StructType output(StructType input, String valueColumn) {
        return input.add(valueColumn, org.apache.spark.sql.types.DataTypes.BinaryType, true);
    }

    @Override
    public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
        MessageEncoder encoder = Plugged.made(encoderClass, MessageEncoder.class, configText);
        DataType[] types = f.types;
        UnsafeProjection unsafe = UnsafeProjection.create(output(input, "value"));
        Object[] values = new Object[types.length + 1];
        GenericInternalRow out = new GenericInternalRow(values);
        return new Iterator<InternalRow>() {
            @Override
            public boolean hasNext() {
                return rows.hasNext();
            }

            @Override
            public InternalRow next() {
                InternalRow row = rows.next();
                byte[] value = encode(row, encoder);
                for (int i = 0; i < types.length; i++) {
                    boolean dropped = value != null && (i == f.columns || i == f.preColumns);
                    values[i] = dropped || row.isNullAt(i) ? null : row.get(i, types[i]);
                }
                values[types.length] = value;
                return unsafe.apply(out).copy(); // the input row's buffer is reused by its iterator
            }
        };
    }

    private byte[] encode(InternalRow row, MessageEncoder encoder) {
        if (!row.isNullAt(f.counts) || row.isNullAt(f.kind) || row.isNullAt(f.commitTs)) {
            return null;
        }
        String k = row.getUTF8String(f.kind).toString();
        if (k.equals("resolved")) {
            return encoder.watermark(f.commitTs(row), now());
        }
        if (!(k.equals("insert") || k.equals("update") || k.equals("delete"))) {
            return null; // DDL events: Python
        }
        return f.encodeRow(encoder, k, row, now());
    }

    /** The {@code ts} field of the next message: the clock given, or the wall clock. */
    private long now() {
        return clock < 0 ? System.currentTimeMillis() : clock;
    }
}
