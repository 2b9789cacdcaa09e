package io.cdcwire.spark;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A batching protocol's messages made over Spark's internal rows by the plugin's
 * {@link BatchEncoder}: a partition of routed, sorted event copies in, the same rows out, the
 * events in their order, with four fields appended: the message value and key (binary), the number of
 * events the message carries (int) and the messages of no event that go before it. A message sits
 * on the row of its last event, with that event count; the other events it carries have a count of
 * 0 and no value; an event left to the Python encoder has a null count (and keeps its images, which
 * are nulled on every other row).
 *
 * <p>A message of 0 events (plugin API 1.17: simple's BOOTSTRAP, a table's schema sent before a
 * row) has no row of its own: it rides on the first row of the next message the encoder closes, in
 * the fourth field (a list of key/value pairs, null on every other row), and whoever writes the
 * row writes those messages first, in order. An encoder closes a 0-event message only together with
 * a message of events after it: one left over when the rows go to Python is a broken contract.
 *
 * <p>Where the encoder hands its state over as it leaves events to Python (plugin API 1.18:
 * {@link BatchEncoder#handOver}), the text rides on the first row left to Python, in a fifth field
 * (a string, null on every other row): the encoding stage gives it to the Python encoder before that
 * row, so that it continues where Java stopped.
 *
 * <p>Rows wait here until the message that carries them closes (a batch closes on the event
 * after it), so the rows of one open batch are held, copied, at a time. Count rows of the routing
 * pass straight through, ahead of the rows held then (the encoding stage takes them out anyway). See {@link MessageEncoding} for why this runs over internal rows.
 */
public final class BatchEncoding implements FlatMapFunction<Iterator<InternalRow>, InternalRow> {
    private static final long serialVersionUID = 1L;

    private final String encoderClass;
    private final String configText;
    private final StructType input;
    private final long clock;
    private final EventFields f;
    private final int topic, partition;

    public BatchEncoding(String encoderClass, String configText, StructType input, long clock) {
        this.encoderClass = encoderClass;
        this.configText = configText;
        this.input = input;
        this.clock = clock;
        f = new EventFields(input);
        topic = input.fieldIndex("_cdc_topic");
        partition = input.fieldIndex("_cdc_partition");
    }

    /** The type of the messages of no event before a row's: a list of key/value pairs. */
    public static final ArrayType BEFORE_TYPE = DataTypes.createArrayType(new StructType()
            .add("key", DataTypes.BinaryType, true).add("value", DataTypes.BinaryType, false), false);

    /** The output's schema: the input's, then the value, the key, the event count, the
     * messages of no event before the row's and the encoder's state handed to Python. */
    public static StructType output(StructType input, String valueColumn, String keyColumn, String eventsColumn,
                                    String beforeColumn, String stateColumn) {
        return input.add(valueColumn, DataTypes.BinaryType, true).add(keyColumn, DataTypes.BinaryType, true)
                .add(eventsColumn, DataTypes.IntegerType, true).add(beforeColumn, BEFORE_TYPE, true)
                .add(stateColumn, DataTypes.StringType, true);
    }

    @Override
    public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
        return new Run(rows, Plugged.made(encoderClass, BatchEncoder.class, configText));
    }

    /** One task's pass: the rows in, the rows out in the same order once their fate is known. */
    private final class Run implements Iterator<InternalRow> {
        private final Iterator<InternalRow> rows;
        private final BatchEncoder encoder;
        private final DataType[] types = f.types;
        private final UnsafeProjection unsafe = UnsafeProjection.create(output(input, "v", "k", "e", "b", "s"));
        private final Object[] values;
        private final GenericInternalRow out;
        private final ArrayDeque<InternalRow> held = new ArrayDeque<>(); // taken, no message yet
        private final ArrayDeque<InternalRow> ready = new ArrayDeque<>();
        private final List<BatchEncoder.Message> before = new ArrayList<>(); // closed, of 0 events, not placed
        private String topicNow;
        private int partitionNow;
        private boolean python; // the Python encoder has the topic-partition's batch
        private boolean started;
        private String state; // handed over by the encoder, for the next row left to Python

        Run(Iterator<InternalRow> rows, BatchEncoder encoder) {
            this.rows = rows;
            this.encoder = encoder;
            values = new Object[types.length + 5];
            out = new GenericInternalRow(values);
        }

        @Override
        public boolean hasNext() {
            while (ready.isEmpty() && rows.hasNext()) {
                take(rows.next());
            }
            if (ready.isEmpty() && started) {
                started = false;
                end();
            }
            return !ready.isEmpty();
        }

        @Override
        public InternalRow next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            return ready.poll();
        }

        private void take(InternalRow row) {
            if (!row.isNullAt(f.counts)) {
                ready.add(emitted(row, null, null, null, null)); // the routing's count rows: not events
                return;
            }
            String t = EventFields.text(row, topic);
            int p = row.isNullAt(partition) ? -1 : row.getInt(partition);
            if (!started || !Objects.equals(t, topicNow) || p != partitionNow) {
                if (started) {
                    end();
                }
                topicNow = t;
                partitionNow = p;
                started = true;
                python = false;
                encoder.start(t, p);
            }
            String k = EventFields.text(row, f.kind);
            if (python) {
                ready.add(emitted(row, null, null, null, null));
                if (encoder.resumes(k)) {
                    python = false;
                    encoder.start(t, p);
                }
                return;
            }
            boolean sure;
            boolean leaving = false;
            if (row.isNullAt(f.commitTs) || k == null) {
                sure = encoder.leave(k);
                leaving = true;
            } else if (k.equals("resolved")) {
                sure = encoder.watermark(f.commitTs(row), now());
            } else if (k.equals("insert") || k.equals("update") || k.equals("delete")) {
                sure = f.offerRow(encoder, k, row, now());
            } else if (k.equals("ddl") && encoder.encodesDdl()) {
                sure = f.offerDdl(encoder, row, now());
            } else {
                sure = encoder.leave(k);
                leaving = true;
            }
            if (sure && !leaving) {
                held.add(row.copy()); // the input row's buffer is reused by its iterator
            }
            placeMessages();
            if (!sure) {
                state = encoder.handOver();
            }
            if (!sure || leaving) {
                toPython();
                ready.add(emitted(row, null, null, null, null));
                if (!sure) {
                    python = !encoder.resumes(k);
                    encoder.start(t, p);
                }
            }
        }

        /** The held rows of each message closed: carried (count 0), the last with the message; the
         * messages of 0 events closed before it on its first row. */
        private void placeMessages() {
            for (BatchEncoder.Message m = encoder.poll(); m != null; m = encoder.poll()) {
                if (m.events == 0) {
                    before.add(m);
                    continue;
                }
                if (m.events < 0 || m.events > held.size()) {
                    throw new IllegalStateException(encoderClass + " closed a message of " + m.events
                            + " events with " + held.size() + " events held");
                }
                GenericArrayData first = beforeMessages();
                for (int i = 1; i < m.events; i++) {
                    ready.add(emitted(held.poll(), null, null, 0, i == 1 ? first : null));
                }
                ready.add(emitted(held.poll(), m.value, m.key, m.events, m.events == 1 ? first : null));
            }
        }

        /** The messages of 0 events waiting for the next message, taken; null when there are none. */
        private GenericArrayData beforeMessages() {
            if (before.isEmpty()) {
                return null;
            }
            Object[] pairs = new Object[before.size()];
            for (int i = 0; i < pairs.length; i++) {
                BatchEncoder.Message m = before.get(i);
                pairs[i] = new GenericInternalRow(new Object[] {m.key, m.value});
            }
            before.clear();
            return new GenericArrayData(pairs);
        }

        /** The held rows, which no message of Java's carries, go to Python. */
        private void toPython() {
            if (!before.isEmpty()) {
                throw new IllegalStateException(encoderClass + " closed a message of 0 events with no message"
                        + " of events after it");
            }
            while (!held.isEmpty()) {
                ready.add(emitted(held.poll(), null, null, null, null));
            }
        }

        private void end() {
            if (!python) {
                encoder.finish();
                placeMessages();
            }
            toPython();
        }

        private InternalRow emitted(InternalRow row, byte[] value, byte[] key, Integer events, GenericArrayData first) {
            int n = types.length;
            for (int i = 0; i < n; i++) {
                boolean dropped = events != null && (i == f.columns || i == f.preColumns);
                values[i] = dropped || row.isNullAt(i) ? null : row.get(i, types[i]);
            }
            values[n] = value;
            values[n + 1] = key;
            values[n + 2] = events;
            values[n + 3] = first;
            values[n + 4] = null;
            if (events == null && state != null) { // the first row left to Python after the hand-over
                values[n + 4] = UTF8String.fromString(state);
                state = null;
            }
            return unsafe.apply(out).copy();
        }
    }

    /** The clock of the next message: the clock given, or the wall clock. */
    private long now() {
        return clock < 0 ? System.currentTimeMillis() : clock;
    }
}
