package io.cdcwire.spark;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.UUID;
import java.util.zip.CRC32;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The messages a Java encoder made for a {@code file://} write, framed and staged by the task
 * itself, as the file transport's task writer stages them ({@code cdcwire.transports.file.job},
 * {@code .staging}, {@code .framing}): a fresh attempt directory in the job's staging area,
 * {@code <attempt>/<topic>/<partition>.cdcwire}, the magic, then each message as a record
 * (lengths, CRC-32, key, value). Not fsynced here: the Python writer that adopts a segment-0 file, or
 * appends a later segment's piece to its own file, makes it durable with its own files before its receipt
 * (an fsync a segment cost every run a row left to Python ended, in every partition).
 *
 * <p>Why: when Java made every message of a task, handing each one to a Python worker through
 * Arrow only for Python to frame and stage it was a fifth of a whole write. Here those rows never
 * leave the JVM. The task's Python stage still runs, for one row: the marker
 * ({@code _cdc_staged}, a JSON text) saying which attempt Java staged, each file's size and what
 * it wrote per topic-partition, which the Python task writer adopts as its own
 * ({@code MessageWriter.adopt_staged}), so the receipt, the publish and every check after it stay
 * the transport's.
 *
 * <p>A task's rows come in runs: Java stages a run while it made each row's message; a row it
 * did not (left to the Python encoder: a DDL event, say), or a topic it is not sure can be a
 * file, goes to the Python stage as it is, and Java's next run begins after it. Each run ends with
 * one marker row per topic-partition it staged, in the rows' order, so the Python stage writes
 * everything in order: the task's first run (before any row went to Python) is the attempt's own
 * staged files, which the Python writer adopts; a later run's records are a piece
 * ({@code <attempt>/.java-<run>/<topic>/<partition>.cdcwire}) the Python writer appends to its
 * file when it reaches the marker. The routing pass's count rows go through as they come. A file
 * Java cannot write puts the failure in the marker: the Python stage raises it as the
 * transport's error, and the attempt is discarded with the job.
 */
public final class FramedStaging implements FlatMapFunction<Iterator<InternalRow>, InternalRow> {
    private static final long serialVersionUID = 1L;
    private static final byte[] MAGIC = "CDCWIRE1".getBytes(StandardCharsets.US_ASCII);
    private static final int NONE_LEN = 0xFFFFFFFF;

    private final String area;
    private final int width, topic, partition, counts, sub, value, key, events, before;

    /**
     * {@code input}: the Java encoding pass's rows ({@link MessageEncoding}'s, or
     * {@link BatchEncoding}'s with a key, an event count and the messages of no event before a
     * row's, which are staged first); {@code area}: the write job's staging area.
     */
    public FramedStaging(StructType input, String area, String valueColumn, String keyColumn, String eventsColumn,
                         String beforeColumn) {
        this.area = area;
        width = input.size();
        topic = input.fieldIndex("_cdc_topic");
        partition = input.fieldIndex("_cdc_partition");
        counts = input.fieldIndex("_cdc_counts");
        sub = input.fieldIndex("_cdc_sub");
        value = input.fieldIndex(valueColumn);
        boolean batching = java.util.Arrays.asList(input.fieldNames()).contains(eventsColumn);
        key = batching ? input.fieldIndex(keyColumn) : -1;
        events = batching ? input.fieldIndex(eventsColumn) : -1;
        before = batching ? input.fieldIndex(beforeColumn) : -1;
    }

    /** The output's schema: the input's, every field nullable (a marker row has only its
     * topic-partition), then the marker (a string, null on every other row). */
    public static StructType output(StructType input, String markerColumn) {
        StructType out = new StructType();
        for (org.apache.spark.sql.types.StructField field : input.fields()) {
            out = out.add(field.name(), field.dataType(), true);
        }
        return out.add(markerColumn, DataTypes.StringType, true);
    }

    @Override
    public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
        return new Run(rows);
    }

    /** The file transport's topic rule ({@code paths.topic_problem}): else the Python stage says why. */
    static boolean topicOk(String t) {
        return !t.isEmpty() && !t.equals("..") && !t.startsWith(".") && t.indexOf('/') < 0 && t.indexOf('\\') < 0
                && t.indexOf('\0') < 0 && JsonBytes.plainText(t);
    }

    /** What one run of a task staged into one topic-partition's file. */
    private static final class Written {
        final String topic;
        final int partition;
        final File file;
        long size, fed, events, messages, bytes, eventsIn;

        Written(String topic, int partition, File file) {
            this.topic = topic;
            this.partition = partition;
            this.file = file;
        }
    }

    /** One task's pass. */
    private final class Run implements Iterator<InternalRow> {
        private final Iterator<InternalRow> rows;
        private final ArrayDeque<InternalRow> ready = new ArrayDeque<>(2);
        private final GenericInternalRow nulls = new GenericInternalRow(1);
        private final String attempt = UUID.randomUUID().toString().replace("-", "");
        private final CRC32 crc = new CRC32();
        private final byte[] head = new byte[12];
        private boolean passed; // a row went to the Python stage: it may have staged its own
        private int segment = -1; // the open run's segment, -1 between runs
        private int lastSegment;
        private String failure; // the file Java could not write (JSON), said in the next marker
        private Written now; // the open file's topic-partition
        private FileOutputStream stream;
        private BufferedOutputStream out;

        Run(Iterator<InternalRow> rows) {
            this.rows = rows;
        }

        @Override
        public boolean hasNext() {
            while (ready.isEmpty()) {
                if (!rows.hasNext()) {
                    endFile();
                    return !ready.isEmpty();
                }
                InternalRow row = rows.next();
                if (!row.isNullAt(counts)) {
                    ready.add(new JoinedRow(row, nulls)); // the Python stage sums them wherever they come
                } else if (failure != null || !staged(row)) {
                    endFile();
                    segment = -1;
                    passed = true;
                    ready.add(new JoinedRow(row, nulls));
                }
            }
            return true;
        }

        @Override
        public InternalRow next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            return ready.poll();
        }

        /** Stage the row's message (if it ends one); false to hand it to the Python stage. */
        private boolean staged(InternalRow row) {
            int carried;
            if (events < 0) {
                if (row.isNullAt(value)) {
                    return false;
                }
                carried = 1;
            } else {
                if (row.isNullAt(events)) {
                    return false;
                }
                carried = row.getInt(events);
            }
            String t = row.getUTF8String(topic).toString();
            int p = row.getInt(partition);
            if (now == null || p != now.partition || !t.equals(now.topic)) {
                endFile();
                if (p < 0 || !topicOk(t) || !open(t, p)) {
                    return false;
                }
            }
            if (before >= 0 && !row.isNullAt(before)) { // messages of no event, written before the row's
                org.apache.spark.sql.catalyst.util.ArrayData pairs = row.getArray(before);
                for (int i = 0; i < pairs.numElements(); i++) {
                    InternalRow pair = pairs.getStruct(i, 2);
                    if (!message(pair.isNullAt(0) ? null : pair.getBinary(0), pair.getBinary(1), 0)) {
                        return false;
                    }
                }
            }
            if (carried > 0) {
                byte[] k = events < 0 || row.isNullAt(key) ? null : row.getBinary(key);
                byte[] v = row.isNullAt(value) ? null : row.getBinary(value); // null: a tombstone (avro's delete)
                if (!message(k, v, carried)) {
                    return false;
                }
            }
            now.fed++;
            if (row.getByte(sub) == 0) {
                now.eventsIn++;
            }
            return true;
        }

        /** One message framed and counted. */
        private boolean message(byte[] k, byte[] v, int carried) {
            if (!frame(k, v)) {
                return false;
            }
            now.events += carried;
            now.messages++;
            now.bytes += (k == null ? 0 : k.length) + (v == null ? 0 : v.length);
            return true;
        }

        /**
         * The file of a topic-partition in this run's segment: segment 0 (the task's first run,
         * before any row went to Python) is the attempt's own staged file, magic first, which the
         * Python writer adopts; a later run's is a piece of records it appends to its file.
         */
        private boolean open(String t, int p) {
            if (segment < 0) {
                segment = passed ? ++lastSegment : 0;
            }
            File dir = new File(area, attempt);
            if (segment > 0) {
                dir = new File(dir, ".java-" + segment);
            }
            File f = new File(new File(dir, t), p + ".cdcwire");
            Written w = new Written(t, p, f);
            try {
                File parent = f.getParentFile();
                if (!parent.isDirectory() && !parent.mkdirs()) {
                    throw new IOException("cannot make the directory " + parent);
                }
                stream = new FileOutputStream(f);
                out = new BufferedOutputStream(stream, 1 << 20);
                if (segment == 0) {
                    out.write(MAGIC);
                    w.size = MAGIC.length;
                }
            } catch (IOException e) {
                now = w;
                fail(e);
                return false;
            }
            now = w;
            return true;
        }

        /** One record: the lengths, the CRC-32 of the lengths, key and value, then key and value. */
        private boolean frame(byte[] k, byte[] v) {
            putInt(0, k == null ? NONE_LEN : k.length);
            putInt(4, v == null ? NONE_LEN : v.length);
            crc.reset();
            crc.update(head, 0, 8);
            if (k != null) {
                crc.update(k);
            }
            if (v != null) {
                crc.update(v);
            }
            putInt(8, (int) crc.getValue());
            try {
                out.write(head);
                if (k != null) {
                    out.write(k);
                }
                if (v != null) {
                    out.write(v);
                }
            } catch (IOException e) {
                fail(e);
                return false;
            }
            now.size += 12 + (k == null ? 0 : k.length) + (v == null ? 0 : v.length);
            return true;
        }

        private void putInt(int at, int v) {
            head[at] = (byte) (v >>> 24);
            head[at + 1] = (byte) (v >>> 16);
            head[at + 2] = (byte) (v >>> 8);
            head[at + 3] = (byte) v;
        }

        /** The open file flushed and closed, and its marker queued (with the failure, if any). */
        private void endFile() {
            if (now == null) {
                return;
            }
            if (stream != null) {
                try {
                    out.flush(); // no fsync here: the Python writer makes what it adopts or appends durable as its own
                } catch (IOException e) {
                    fail(e);
                } finally {
                    try {
                        stream.close();
                    } catch (IOException e) {
                        fail(e);
                    }
                    stream = null;
                    out = null;
                }
            }
            ready.add(marker(now));
            now = null;
        }

        private void fail(IOException e) {
            if (failure == null) {
                StringBuilder s = new StringBuilder("{\"path\":");
                JsonText.append(s, now.file.getPath());
                s.append(",\"reason\":");
                JsonText.append(s, String.valueOf(e.getMessage()));
                failure = s.append('}').toString();
            }
        }

        /** The row that tells the Python stage what this run staged for one topic-partition. */
        private InternalRow marker(Written w) {
            StringBuilder s = new StringBuilder("{\"attempt\":\"").append(attempt).append("\",\"segment\":")
                    .append(segment).append(",\"size\":").append(w.size).append(",\"fed\":").append(w.fed)
                    .append(",\"events\":").append(w.events).append(",\"messages\":").append(w.messages)
                    .append(",\"bytes\":").append(w.bytes).append(",\"events_in\":").append(w.eventsIn)
                    .append(",\"failure\":").append(failure == null ? "null" : failure).append('}');
            Object[] fields = new Object[width + 1];
            fields[topic] = UTF8String.fromString(w.topic);
            fields[partition] = w.partition;
            fields[width] = UTF8String.fromString(s.toString());
            return new GenericInternalRow(fields);
        }
    }
}
