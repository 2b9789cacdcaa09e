package io.cdcwire.spark;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Objects;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A batching protocol's messages made over Spark's internal rows by the plugin's
 * {@link BatchEncoder}: a partition of routed, sorted event copies in, the same rows out, the
 * events in their order, with three fields appended: the message value and key (binary) and the number of
 * events the message carries (int). A message sits on the row of its last event, with that
 * event count; the other events it carries have a count of 0 and no value; an event left to the
 * Python encoder has a null count (and keeps its images, which are nulled on every other row).
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

    /** The output's schema: the input's, then the value, the key and the event count. */
    public static StructType output(StructType input, String valueColumn, String keyColumn, String eventsColumn) {
        return input.add(valueColumn, DataTypes.BinaryType, true).add(keyColumn, DataTypes.BinaryType, true)
                .add(eventsColumn, DataTypes.IntegerType, true);
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
        private final UnsafeProjection unsafe = UnsafeProjection.create(output(input, "v", "k", "e"));
        private final Object[] values;
        private final GenericInternalRow out;
        private final ArrayDeque<InternalRow> held = new ArrayDeque<>(); // taken, no message yet
        private final ArrayDeque<InternalRow> ready = new ArrayDeque<>();
        private String topicNow;
        private int partitionNow;
        private boolean python; // the Python encoder has the topic-partition's batch
        private boolean started;

        Run(Iterator<InternalRow> rows, BatchEncoder encoder) {
            this.rows = rows;
            this.encoder = encoder;
            values = new Object[types.length + 3];
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
                ready.add(emitted(row, null, null, null)); // the routing's count rows: not events
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
                ready.add(emitted(row, null, null, null));
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
            } else {
                sure = encoder.leave(k);
                leaving = true;
            }
            if (sure && !leaving) {
                held.add(row.copy()); // the input row's buffer is reused by its iterator
            }
            placeMessages();
            if (!sure || leaving) {
                toPython();
                ready.add(emitted(row, null, null, null));
                if (!sure) {
                    python = !encoder.resumes(k);
                    encoder.start(t, p);
                }
            }
        }

        /** The held rows of each message closed: carried (count 0), the last with the message. */
        private void placeMessages() {
            for (BatchEncoder.Message m = encoder.poll(); m != null; m = encoder.poll()) {
                if (m.events < 1 || m.events > held.size()) {
                    throw new IllegalStateException(encoderClass + " closed a message of " + m.events
                            + " events with " + held.size() + " events held");
                }
                for (int i = 1; i < m.events; i++) {
                    ready.add(emitted(held.poll(), null, null, 0));
                }
                ready.add(emitted(held.poll(), m.value, m.key, m.events));
            }
        }

        /** The held rows, which no message of Java's carries, go to Python. */
        private void toPython() {
            while (!held.isEmpty()) {
                ready.add(emitted(held.poll(), null, null, null));
            }
        }

        private void end() {
            if (!python) {
                encoder.finish();
                placeMessages();
            }
            toPython();
        }

        private InternalRow emitted(InternalRow row, byte[] value, byte[] key, Integer events) {
            int n = types.length;
            for (int i = 0; i < n; i++) {
                boolean dropped = events != null && (i == f.columns || i == f.preColumns);
                values[i] = dropped || row.isNullAt(i) ? null : row.get(i, types[i]);
            }
            values[n] = value;
            values[n + 1] = key;
            values[n + 2] = events;
            return unsafe.apply(out).copy();
        }
    }

    /** The clock of the next message: the clock given, or the wall clock. */
    private long now() {
        return clock < 0 ? System.currentTimeMillis() : clock;
    }
}
