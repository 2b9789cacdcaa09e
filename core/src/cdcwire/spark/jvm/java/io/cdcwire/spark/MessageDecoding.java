package io.cdcwire.spark;

import java.util.Iterator;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.StructType;

/**
 * A protocol's messages read into event rows over Spark's internal rows, by the plugin's
 * {@link MessageDecoder} (made in each task from its class name and configuration text): a partition of messages
 * ({@code key}, {@code value}, {@code topic}, {@code partition}, {@code offset}) in, a row per
 * event Java read (several for a message that packs a batch: {@link MessageDecoder#readAll}) or
 * one pending row per message it did not, in the same order, of the given output schema: the event fields first
 * ({@link MessageDecoder#EVENT_FIELDS}), then {@code topic}, {@code partition}, {@code offset},
 * and last {@code _cdc_pending}, {@code _cdc_key}, {@code _cdc_value}, {@code _cdc_rest_end}.
 *
 * <p>A <em>rest</em> row of the input (a non-null {@code _cdc_rest_end}: {@link FramedFiles} left
 * the rest of a range, from its {@code offset}, to the Python reader) is no message: it comes out
 * pending with its {@code _cdc_rest_end}, for the Python pass to read and decode in its place.
 *
 * <p>A message the decoder is not sure of comes out pending: event fields null,
 * its key and value kept, for the Python decoder, which reads it in its place next
 * ({@code cdcwire.spark.reader.jvm_decoding}). Why over internal rows and not a UDF: the events
 * it makes are nested rows, which a UDF's result would be converted from external objects.
 */
public final class MessageDecoding implements FlatMapFunction<Iterator<InternalRow>, InternalRow> {
    private static final long serialVersionUID = 1L;

    private final String decoderClass;
    private final String configText;
    private final StructType output;
    private final int key, value, topic, partition, offset, restEnd;

    public MessageDecoding(String decoderClass, String configText, StructType input, StructType output) {
        this.decoderClass = decoderClass;
        this.configText = configText;
        this.output = output;
        key = input.fieldIndex("key");
        value = input.fieldIndex("value");
        topic = input.fieldIndex("topic");
        partition = input.fieldIndex("partition");
        offset = input.fieldIndex("offset");
        restEnd = java.util.Arrays.asList(input.fieldNames()).indexOf("_cdc_rest_end"); // -1: no rest rows
    }

    @Override
    public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
        MessageDecoder decoder = Plugged.made(decoderClass, MessageDecoder.class, configText);
        UnsafeProjection unsafe = UnsafeProjection.create(output);
        int width = output.fields().length;
        int topicAt = output.fieldIndex("topic");
        int partitionAt = output.fieldIndex("partition");
        int offsetAt = output.fieldIndex("offset");
        int pendingAt = output.fieldIndex("_cdc_pending");
        int keyAt = output.fieldIndex("_cdc_key");
        int valueAt = output.fieldIndex("_cdc_value");
        int restEndAt = output.fieldIndex("_cdc_rest_end");
        Object[] values = new Object[width];
        GenericInternalRow out = new GenericInternalRow(values);
        return new Iterator<InternalRow>() {
            private Object[][] events; // the events of the message being given out
            private int next;
            private Object topicOf, partitionOf, offsetOf;
            private InternalRow ready; // a pending message's row, ready

            @Override
            public boolean hasNext() {
                while (ready == null && (events == null || next >= events.length)) {
                    if (!rows.hasNext()) {
                        return false;
                    }
                    take(rows.next());
                }
                return true;
            }

            /** Reads a message: its events to give out, or its pending row (an empty array: a
             * message of no event, which gives no row). */
            private void take(InternalRow message) {
                byte[] bytes = message.isNullAt(value) ? null : message.getBinary(value);
                boolean placed = !message.isNullAt(topic) && !message.isNullAt(partition) && !message.isNullAt(offset);
                byte[] keyBytes = message.isNullAt(key) ? null : message.getBinary(key);
                // a message without a place is pending with its null place, and the Python pass
                // refuses it as the Python tier does (cdcwire.spark.reader.message_decoding)
                topicOf = message.isNullAt(topic) ? null : message.getUTF8String(topic).clone();
                partitionOf = message.isNullAt(partition) ? null : message.getInt(partition);
                offsetOf = message.isNullAt(offset) ? null : message.getLong(offset);
                Object rest = restEnd < 0 || message.isNullAt(restEnd) ? null : message.getLong(restEnd);
                events = placed && rest == null ? decoder.readAll(keyBytes, bytes) : null;
                next = 0;
                if (events == null) {
                    java.util.Arrays.fill(values, null);
                    values[pendingAt] = true;
                    values[keyAt] = keyBytes;
                    values[valueAt] = bytes;
                    values[restEndAt] = rest;
                    ready = placedRow();
                }
            }

            @Override
            public InternalRow next() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                if (ready != null) {
                    InternalRow row = ready;
                    ready = null;
                    return row;
                }
                java.util.Arrays.fill(values, null);
                System.arraycopy(events[next++], 0, values, 0, MessageDecoder.EVENT_FIELDS);
                values[pendingAt] = false;
                return placedRow();
            }

            private InternalRow placedRow() {
                values[topicAt] = topicOf;
                values[partitionAt] = partitionOf;
                values[offsetAt] = offsetOf;
                return unsafe.apply(out).copy(); // the input row's buffer is reused by its iterator
            }
        };
    }
}
