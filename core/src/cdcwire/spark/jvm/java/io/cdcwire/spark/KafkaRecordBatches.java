package io.cdcwire.spark;

import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;
import java.util.zip.GZIPInputStream;
import net.jpountz.lz4.LZ4FrameInputStream;
import org.xerial.snappy.SnappyInputStream;

/**
 * Kafka's record batches (magic 2) into records: the CRC-32C checked, the records of a compressed
 * batch inflated (gzip by java.util.zip; snappy in xerial's framing, LZ4 frames and zstd by the
 * jars PySpark ships), control batches (transaction markers) passed over as a consumer passes
 * them.
 *
 * <p>Why it only says "irregular" and never why: whatever it is not sure of (another magic, a CRC
 * that fails, a codec it does not know, a record that does not parse) is read again by the Python
 * reader, whose consumer decides what happens and says it.
 */
final class KafkaRecordBatches {
    private static final int HEAD = 61; // base offset .. record count
    private static final int MAGIC_AT = 16;
    private static final int CRC_AT = 17;
    private static final int ATTRIBUTES_AT = 21;

    /** One record: its offset, key and value (null: none). */
    static final class Record {
        final long offset;
        final byte[] key, value;

        Record(long offset, byte[] key, byte[] value) {
            this.offset = offset;
            this.key = key;
            this.value = value;
        }
    }

    private KafkaRecordBatches() {}

    /**
     * The records from {@code from} in {@code data} (a Fetch answer's record set), in {@code out};
     * returns the offset to fetch next, or {@code -1 - next} when a batch was irregular ({@code next}:
     * the first offset not given). A batch cut short at the end (the broker fills up to the fetch's
     * byte limit) is fetched again whole.
     */
    static long decode(ByteBuffer data, long from, List<Record> out) {
        long next = from;
        ByteBuffer d = data.duplicate();
        while (d.remaining() >= 12) {
            int at = d.position();
            long base = d.getLong(at);
            int length = d.getInt(at + 8);
            if (length < HEAD - 12) {
                return -1 - next;
            }
            if (d.remaining() < 12 + length) {
                break; // a partial batch: the next fetch begins with it
            }
            ByteBuffer batch = d.slice();
            batch.limit(12 + length);
            d.position(at + 12 + length);
            if (batch.get(MAGIC_AT) != 2) {
                return -1 - next;
            }
            CRC32C crc = new CRC32C();
            ByteBuffer checked = batch.duplicate();
            checked.position(ATTRIBUTES_AT);
            crc.update(checked);
            if ((int) crc.getValue() != batch.getInt(CRC_AT)) {
                return -1 - next;
            }
            short attributes = batch.getShort(ATTRIBUTES_AT);
            long last = base + batch.getInt(ATTRIBUTES_AT + 2);
            if ((attributes & 0x20) != 0) { // a control batch: no records a consumer sees
                next = Math.max(next, last + 1);
                continue;
            }
            int count = batch.getInt(HEAD - 4);
            batch.position(HEAD);
            try (DataInputStream records = new DataInputStream(inflated(attributes & 0x07, batch))) {
                for (int i = 0; i < count; i++) {
                    Record r = record(records, base);
                    if (r.offset < from) {
                        continue; // before the fetch's offset: a batch begins where it begins
                    }
                    if (r.offset < next || r.offset > last) {
                        return -1 - next;
                    }
                    out.add(r);
                    next = r.offset + 1;
                }
            } catch (IOException | RuntimeException e) {
                return -1 - next;
            }
            next = Math.max(next, last + 1);
        }
        return next;
    }

    private static InputStream inflated(int codec, ByteBuffer records) throws IOException {
        byte[] bytes = new byte[records.remaining()];
        records.get(bytes);
        InputStream raw = new ByteArrayInputStream(bytes);
        switch (codec) {
            case 0: return raw;
            case 1: return new GZIPInputStream(raw);
            case 2: return new SnappyInputStream(raw);
            case 3: return new LZ4FrameInputStream(raw);
            case 4: return new ZstdInputStream(raw);
            default: throw new IOException("codec " + codec);
        }
    }

    private static Record record(DataInputStream in, long base) throws IOException {
        long length = varlong(in);
        if (length < 0) {
            throw new IOException("record length");
        }
        in.readByte(); // attributes
        varlong(in); // timestamp delta
        long offset = base + varlong(in);
        byte[] key = bytes(in);
        byte[] value = bytes(in);
        long headers = varlong(in);
        for (long h = 0; h < headers; h++) {
            bytes(in);
            bytes(in);
        }
        return new Record(offset, key, value);
    }

    private static byte[] bytes(DataInputStream in) throws IOException {
        long n = varlong(in);
        if (n < 0) {
            return null;
        }
        if (n > Integer.MAX_VALUE - 16) {
            throw new IOException("record field length");
        }
        byte[] b = new byte[(int) n];
        in.readFully(b);
        return b;
    }

    /** A zig-zag varint (Kafka's varint and varlong). */
    private static long varlong(DataInputStream in) throws IOException {
        long raw = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.readUnsignedByte();
            raw |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new IOException("varint too long");
    }
}
