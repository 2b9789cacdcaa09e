package io.cdcwire.spark;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.zip.CRC32;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The {@code file://} transport's message source in the JVM: each element of the partition is
 * one message range the driver planned (JSON: {@code topic}, {@code partition}, {@code path},
 * {@code start}, {@code end}, and where to begin walking, {@code offset} at {@code byte}, an
 * offset index entry the driver checked or the first record; {@code size}, the committed bytes;
 * {@code python}, the whole range is Python's), read into message rows: {@code topic},
 * {@code partition}, {@code offset}, {@code key}, {@code value}, {@code _cdc_rest_end} (null).
 *
 * <p>Why it reads only clean records: every irregular case (a bad magic, a CRC that fails, a
 * length past the end, a torn tail, a damaged stretch to skip or to refuse) has its behaviour and
 * error text in the Python reader ({@code cdcwire.transports.file.framing}), which stays the one
 * place they are decided. So at the first record that is not intact, this source stops and gives
 * one <em>rest</em> row: {@code offset} the first offset not given yet, {@code _cdc_rest_end} the
 * range's end, no key or value. The decoding tier's Python pass reads those offsets with the
 * Python reader, which walks to the same record from the same index entry and meets the same
 * irregularity, and decodes them in that row's place (the last of the range), so order, rows and
 * errors are the Python source's. Records past the range's end are not parsed, as in Python.
 */
public final class FramedFiles implements FlatMapFunction<Iterator<String>, InternalRow> {
    private static final long serialVersionUID = 1L;
    private static final byte[] MAGIC = {'C', 'D', 'C', 'W', 'I', 'R', 'E', '1'};
    private static final long NONE_LEN = 0xFFFFFFFFL;
    private static final int HEAD = 12;

    @Override
    public Iterator<InternalRow> call(Iterator<String> ranges) {
        return PlannedRanges.rows(ranges, Range::new);
    }

    /** One range's rows, read lazily: its records, then its rest row if it stopped early. */
    private static final class Range implements PlannedRanges.Range {
        private final UTF8String topic;
        private final int partition;
        private final long start, end, size;
        private long offset, pos;
        private DataInputStream in;
        private InternalRow ready;
        private boolean done;
        private final CRC32 crc = new CRC32();
        private final byte[] head = new byte[HEAD];
        private final OffsetIndex index; // null: none to keep

        Range(JsonNode r) throws IOException {
            topic = UTF8String.fromString(r.get("topic").asText());
            partition = r.get("partition").asInt();
            start = r.get("start").asLong();
            end = r.get("end").asLong();
            size = r.get("size").asLong();
            offset = r.get("offset").asLong();
            pos = r.get("byte").asLong();
            index = r.hasNonNull("index") ? new OffsetIndex(r.get("index")) : null;
            if (r.get("python").asBoolean()) {
                ready = rest(start);
                done = true;
            } else if (start >= end || size == 0) {
                done = true; // nothing to read (a partition nothing was written to, an empty range)
            } else {
                FileChannel channel = FileChannel.open(Paths.get(r.get("path").asText()), StandardOpenOption.READ);
                in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel), 1 << 16));
                byte[] magic = new byte[MAGIC.length];
                if (size < MAGIC.length || !readFully(magic) || !Arrays.equals(magic, MAGIC)) {
                    stop(); // a torn start or not a cdcwire file: Python's to say
                } else {
                    channel.position(pos);
                    in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel), 1 << 16));
                }
            }
        }

        @Override
        public boolean step(ArrayDeque<InternalRow> rows) throws IOException {
            while (ready == null && !done) {
                record();
            }
            if (ready == null) {
                return false;
            }
            rows.add(ready);
            ready = null;
            return true;
        }

        /** The record at {@code pos}: its row when it is intact and in the range, else the rest row. */
        private void record() throws IOException {
            if (offset >= end || pos >= size) {
                close(); // the range's end (or the committed end: Python's records end there too)
                if (index != null) {
                    index.save();
                }
                return;
            }
            if (pos + HEAD > size || !readFully(head)) {
                stop();
                return;
            }
            long klen = u32(0), vlen = u32(4), stored = u32(8);
            long kn = klen == NONE_LEN ? 0 : klen, vn = vlen == NONE_LEN ? 0 : vlen;
            long recordEnd = pos + HEAD + kn + vn;
            if (recordEnd > size || kn + vn > Integer.MAX_VALUE - 16) {
                stop();
                return;
            }
            byte[] body = new byte[(int) (kn + vn)];
            if (!readFully(body)) {
                stop(); // the file shrank under us
                return;
            }
            crc.reset();
            crc.update(head, 0, 8);
            crc.update(body, 0, body.length);
            if (crc.getValue() != stored) {
                stop();
                return;
            }
            if (index != null) {
                index.note(offset, pos, stored);
            }
            if (offset >= start) {
                byte[] key = klen == NONE_LEN ? null : Arrays.copyOfRange(body, 0, (int) kn);
                byte[] value = vlen == NONE_LEN ? null : Arrays.copyOfRange(body, (int) kn, body.length);
                ready = new GenericInternalRow(new Object[] {topic, partition, offset, key, value, null});
            }
            offset++;
            pos = recordEnd;
        }

        /** The first record that is not intact: the rest of the range is the Python reader's. */
        private void stop() {
            ready = rest(Math.max(offset, start));
            close();
        }

        private InternalRow rest(long from) {
            return PlannedRanges.rest(topic, partition, from, end);
        }

        private long u32(int at) {
            return ((head[at] & 0xFFL) << 24) | ((head[at + 1] & 0xFFL) << 16) | ((head[at + 2] & 0xFFL) << 8)
                    | (head[at + 3] & 0xFFL);
        }

        private boolean readFully(byte[] into) throws IOException {
            try {
                in.readFully(into);
                return true;
            } catch (EOFException e) {
                return false;
            }
        }

        @Override
        public void close() {
            done = true;
            if (in != null) {
                try {
                    in.close();
                } catch (IOException e) {
                    // read-only: nothing was left unwritten
                }
                in = null;
            }
        }
    }

    /**
     * The partition's offset index, kept as the Python reader keeps it
     * ({@code cdcwire.transports.file.offset_index}: the same file format, the same rule): an
     * entry for every {@code interval}-th record a clean walk checks, written (a temporary file
     * renamed over the index) when the walk ends clean and the index grew or was dropped; a
     * directory that cannot be written keeps no index, and never fails the read.
     */
    private static final class OffsetIndex {
        private static final byte[] INDEX_MAGIC = {'C', 'D', 'C', 'W', 'I', 'D', 'X', '1'};
        private final String path;
        private final long inode;
        private final long interval;
        private final java.util.List<long[]> entries = new java.util.ArrayList<>();
        private final int saved;

        OffsetIndex(JsonNode index) {
            path = index.get("path").asText();
            inode = index.get("inode").asLong();
            interval = index.get("interval").asLong();
            for (JsonNode e : index.get("entries")) {
                entries.add(new long[] {e.get(0).asLong(), e.get(1).asLong(), e.get(2).asLong()});
            }
            saved = index.get("saved").asInt();
        }

        void note(long offset, long byte_, long crc) {
            if (offset == (entries.size() + 1) * interval) {
                entries.add(new long[] {offset, byte_, crc});
            }
        }

        void save() {
            if (entries.size() == saved) {
                return;
            }
            java.nio.ByteBuffer body = java.nio.ByteBuffer.allocate(8 + 16 + 20 * entries.size() + 4);
            body.put(INDEX_MAGIC).putLong(inode).putInt((int) interval).putInt(entries.size());
            for (long[] e : entries) {
                body.putLong(e[0]).putLong(e[1]).putInt((int) e[2]);
            }
            CRC32 crc = new CRC32();
            crc.update(body.array(), 0, body.position());
            body.putInt((int) crc.getValue());
            java.nio.file.Path target = Paths.get(path);
            java.nio.file.Path tmp = target.resolveSibling(
                    target.getFileName() + "." + java.util.UUID.randomUUID().toString().replace("-", "") + ".tmp");
            try {
                java.nio.file.Files.createDirectories(target.getParent());
                java.nio.file.Files.write(tmp, body.array());
                java.nio.file.Files.move(tmp, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException | RuntimeException e) {
                try {
                    java.nio.file.Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // nothing more to do: no index is kept
                }
            }
        }
    }
}
