package io.cdcwire.spark;

import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * The last pass of a JVM-tier read: each message's events in its place. A row of the first
 * pass ({@link MessageDecoding}) with the second pass's column appended (last: the Python
 * decoder's rows of a pending message, an array of the output's structs) becomes its own
 * event row when Java read it (its first fields are the output's), or the Python decoder's
 * rows when it was pending (none, one or several: a message may hold no event or many).
 *
 * <p>Why a pass of its own and not Spark's {@code inline}: that makes a one-row array of every
 * event Java read, then takes it apart again; here Java's rows are copied once.
 */
public final class DecodedInPlace implements FlatMapFunction<Iterator<InternalRow>, InternalRow> {
    private static final long serialVersionUID = 1L;

    private final StructType output;
    private final int pending, python;

    public DecodedInPlace(StructType input, StructType output) {
        this.output = output;
        pending = input.fieldIndex("_cdc_pending");
        python = input.fields().length - 1;
    }

    @Override
    public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
        int width = output.fields().length;
        DataType[] types = new DataType[width];
        for (int i = 0; i < width; i++) {
            types[i] = output.fields()[i].dataType();
        }
        UnsafeProjection unsafe = UnsafeProjection.create(output);
        Object[] values = new Object[width];
        GenericInternalRow own = new GenericInternalRow(values);
        return new Iterator<InternalRow>() {
            private InternalRow ownRow; // Java's row, ready
            private ArrayData held; // the Python rows of the pending message being given out
            private int next;

            @Override
            public boolean hasNext() {
                while (ownRow == null && (held == null || next >= held.numElements())) {
                    if (!rows.hasNext()) {
                        return false;
                    }
                    InternalRow row = rows.next();
                    held = null;
                    if (!row.getBoolean(pending)) {
                        for (int i = 0; i < width; i++) {
                            values[i] = row.isNullAt(i) ? null : row.get(i, types[i]);
                        }
                        ownRow = unsafe.apply(own).copy();
                    } else if (!row.isNullAt(python)) {
                        held = row.getArray(python).copy();
                        next = 0;
                    }
                }
                return true;
            }

            @Override
            public InternalRow next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                if (ownRow != null) {
                    InternalRow out = ownRow;
                    ownRow = null;
                    return out;
                }
                return unsafe.apply(held.getStruct(next++, width)).copy();
            }
        };
    }
}
