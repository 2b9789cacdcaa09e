package io.cdcwire.craft;

import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.MessageDecoder;
import io.cdcwire.spark.RecordChecks;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One craft message read into its event rows (a message packs a batch:
 * {@link MessageDecoder#readAll}), for the messages it is sure of: every event a row or a
 * resolved event, every byte where the Python decoder ({@code cdcwire_craft.decoder}) reads it
 * without complaint, every value read by the Python decoder's rule for its type and flags
 * ({@link CraftConfig}, probed from it), every row passing the record checks. {@link #readAll}
 * gives null for every other message: DDL, and anything not exactly well-formed. The Python
 * decoder then reads it in its place and words what is wrong with it: Java never refuses a
 * message itself, so the error a reader sees is the Python decoder's.
 *
 * <p>Stricter than the Python decoder where that costs nothing real: a message must start
 * with the one-byte version 1 and end with a one-byte trailer, and each size-table varint must
 * fit an int; TiCDC writes nothing else. The layout (spec "Message format"): version, headers,
 * bodies, term dictionary, size tables, reversed-uvarint trailer (the size tables' length).
 *
 * <p>Most of a message repeats: the last term dictionary is kept by its bytes, and the
 * names/types/flags chunks of each column group by their bytes, per dictionary.
 */
public final class CraftDecoder implements MessageDecoder {
    private static final int VERSION = 1;
    private static final int EVENT_ROW = 1, EVENT_DDL = 2, EVENT_RESOLVED = 3;
    private static final int GROUP_NEW = 1, GROUP_OLD = 2;
    private static final int SHAPES_PER_COUNT = 32;
    private static final UTF8String INSERT = UTF8String.fromString("insert");
    private static final UTF8String UPDATE = UTF8String.fromString("update");
    private static final UTF8String DELETE = UTF8String.fromString("delete");
    private static final UTF8String RESOLVED = UTF8String.fromString("resolved");
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    /** Thrown wherever the bytes are not what Java is sure of; the message goes to Python. */
    private static final class NotSure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotSure() {
            super(null, null, false, false);
        }
    }

    private static final NotSure NOT_SURE = new NotSure();

    /** A group's columns without values: the bytes of its names/types/flags chunks, read. */
    private static final class Shape {
        final byte[] prefix;
        final String[] names;
        final UTF8String[] names8;
        final int[] codes;
        final int[] flags;
        final int[] rules;

        Shape(byte[] prefix, String[] names, int[] codes, int[] flags, int[] rules) {
            this.prefix = prefix;
            this.names = names;
            this.codes = codes;
            this.flags = flags;
            this.rules = rules;
            names8 = new UTF8String[names.length];
            for (int i = 0; i < names.length; i++) {
                names8[i] = UTF8String.fromString(names[i]);
            }
        }
    }

    /** A message's term dictionary, by its bytes, with the group shapes seen with it. */
    private static final class Dictionary {
        final byte[] bytes;
        final String[] terms;
        final UTF8String[] terms8;
        final java.util.HashMap<Integer, ArrayList<Shape>> shapes = new java.util.HashMap<>();

        Dictionary(byte[] bytes, String[] terms) {
            this.bytes = bytes;
            this.terms = terms;
            terms8 = new UTF8String[terms.length];
            for (int i = 0; i < terms.length; i++) {
                terms8[i] = UTF8String.fromString(terms[i]);
            }
        }
    }

    private final CraftConfig config;
    private final RecordChecks checks;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder(); // reports every fault
    private final Dictionary empty = new Dictionary(new byte[0], new String[0]);
    private Dictionary last = empty;
    private int pos; // the reading position in the message being read

    /** Made in each task by the core's {@code MessageDecoding} with the configuration text. */
    public CraftDecoder(String configText) {
        config = new CraftConfig(configText);
        checks = new RecordChecks(config.checks);
    }

    @Override
    public Object[][] readAll(byte[] key, byte[] value) {
        if (value == null) {
            return null;
        }
        try {
            return events(value);
        } catch (RuntimeException e) { // NotSure, or bytes past an end
            return null; // the Python decoder reads it, or says what is wrong
        }
    }

    private Object[][] events(byte[] data) {
        int n = data.length;
        if (n < 2 || data[0] != VERSION || (data[n - 1] & 0xFF) >= 0x80) {
            throw NOT_SURE;
        }
        int start = 1;
        int tablesEnd = n - 1;
        int tablesStart = tablesEnd - (data[n - 1] & 0xFF);
        if (tablesStart < start) {
            throw NOT_SURE;
        }
        long[] fields = smallUvarints(data, tablesStart, tablesEnd);
        int total = fields.length;
        if (total < 4 || fields[0] != 2) {
            throw NOT_SURE;
        }
        long headerSize = unzigzag(fields[1]);
        long dictionarySize = headerSize + unzigzag(fields[2]);
        long count = fields[3];
        if (headerSize < 0 || dictionarySize < 0 || count < 1 || 4 + count > total) {
            throw NOT_SURE;
        }
        int events = (int) count;
        long[] bodies = new long[events];
        long size = 0;
        long bodiesSize = 0;
        for (int i = 0; i < events; i++) {
            size += unzigzag(fields[4 + i]);
            if (size < 0) {
                throw NOT_SURE;
            }
            bodies[i] = size;
            bodiesSize += size;
        }
        List<Integer> rowTables = new ArrayList<>();
        long i = 4 + events;
        while (i < total) {
            rowTables.add((int) i);
            i += 1 + fields[(int) i];
        }
        if (i != total) {
            throw NOT_SURE;
        }
        long headersEnd = start + headerSize;
        long bodiesEnd = headersEnd + bodiesSize;
        if (bodiesEnd + dictionarySize != tablesStart) {
            throw NOT_SURE;
        }
        Dictionary dictionary = dictionary(data, (int) bodiesEnd, tablesStart);
        int terms = dictionary.terms.length;
        long[] headers = uvarints(data, start, (int) headersEnd);
        if (headers.length != 5L * events) {
            throw NOT_SURE;
        }
        // the header chunks: commit ts (delta uvarint), types (uvarint), partition, schema and
        // table ids (delta varint); sums wrap as the Python decoder's (modulo 2^64, int64)
        long ts = 0, partition = 0, schema = 0, table = 0;
        int rows = 0;
        Object[][] out = new Object[events][];
        int at = (int) headersEnd;
        for (int e = 0; e < events; e++) {
            ts += headers[e];
            long type = headers[events + e];
            partition += unzigzag(headers[2 * events + e]);
            schema += unzigzag(headers[3 * events + e]);
            table += unzigzag(headers[4 * events + e]);
            if (schema < -1 || schema >= terms || table < -1 || table >= terms) {
                throw NOT_SURE;
            }
            int end = at + (int) bodies[e];
            if (type == EVENT_ROW) {
                if (rows >= rowTables.size()) {
                    throw NOT_SURE;
                }
                out[e] = row(data, at, end, fields, rowTables.get(rows++), dictionary, ts, name(dictionary, schema),
                        name(dictionary, table), partition);
            } else if (type == EVENT_RESOLVED && end == at) {
                out[e] = resolved(ts);
            } else {
                throw NOT_SURE; // DDL (the Python decoder's), or a type or body it refuses
            }
            at = end;
        }
        if (rows != rowTables.size()) {
            throw NOT_SURE;
        }
        return out;
    }

    private static UTF8String name(Dictionary dictionary, long id) {
        return id < 0 ? UTF8String.EMPTY_UTF8 : dictionary.terms8[(int) id];
    }

    // -- the term dictionary ---------------------------------------------------------------

    private Dictionary dictionary(byte[] data, int start, int end) {
        if (start == end) {
            return empty;
        }
        if (Arrays.equals(last.bytes, 0, last.bytes.length, data, start, end)) {
            return last;
        }
        pos = start;
        long n = uvarint(data, end);
        if (n < 0 || n > end - pos) {
            throw NOT_SURE;
        }
        long[] lengths = new long[(int) n];
        for (int i = 0; i < n; i++) {
            lengths[i] = uvarint(data, end);
        }
        String[] terms = new String[(int) n];
        for (int i = 0; i < n; i++) {
            if (lengths[i] < 0 || lengths[i] > end - pos) {
                throw NOT_SURE;
            }
            terms[i] = text(data, pos, (int) lengths[i]);
            pos += (int) lengths[i];
        }
        if (pos != end) {
            throw NOT_SURE;
        }
        last = new Dictionary(Arrays.copyOfRange(data, start, end), terms);
        return last;
    }

    // -- one event -------------------------------------------------------------------------

    private static Object[] resolved(long ts) {
        Object[] out = new Object[EVENT_FIELDS];
        out[KIND] = RESOLVED;
        out[COMMIT_TS] = Decimal.apply(unsigned(ts), 20, 0);
        out[KEY_ONLY] = false;
        return out;
    }

    /** A row body: its column groups, whose sizes (a delta varint chunk) are the row's size
     * table at {@code table} in {@code fields}. */
    private Object[] row(byte[] data, int at, int end, long[] fields, int table, Dictionary dictionary, long ts,
                         UTF8String schema, UTF8String tableName, long partition) {
        int groups = (int) fields[table];
        Object[] news = null, olds = null;
        List<ColumnEntry> newEntries = null, oldEntries = null;
        long size = 0;
        for (int g = 0; g < groups; g++) {
            size += unzigzag(fields[table + 1 + g]);
            if (size <= 0 || at + size > end) {
                throw NOT_SURE;
            }
            int groupEnd = at + (int) size;
            int kind = data[at] & 0xFF;
            List<ColumnEntry> entries = new ArrayList<>();
            if (kind == GROUP_NEW && news == null) {
                news = group(data, at + 1, groupEnd, dictionary, entries);
                newEntries = entries;
            } else if (kind == GROUP_OLD && olds == null) {
                olds = group(data, at + 1, groupEnd, dictionary, entries);
                oldEntries = entries;
            } else {
                throw NOT_SURE;
            }
            at = groupEnd;
        }
        if (at != end || news == null && olds == null) {
            throw NOT_SURE; // no group: an empty delete, which the record checks refuse
        }
        UTF8String kind = olds == null ? INSERT : news == null ? DELETE : UPDATE;
        BigDecimal commitTs = unsigned(ts);
        if (!checks.plainRow(kind.toString(), commitTs, schema.toString(), tableName.toString(), newEntries,
                oldEntries, false)) {
            throw NOT_SURE;
        }
        Object[] out = new Object[EVENT_FIELDS];
        out[KIND] = kind;
        out[COMMIT_TS] = Decimal.apply(commitTs, 20, 0);
        out[SCHEMA] = schema;
        out[TABLE] = tableName;
        out[TABLE_ID] = partition >= 0 ? partition : null;
        out[COLUMNS] = news == null ? null : new GenericArrayData(news);
        out[PRE_COLUMNS] = olds == null ? null : new GenericArrayData(olds);
        out[KEY_ONLY] = false;
        return out;
    }

    /** A column group after its kind byte: uvarint count, its shape (name ids, type codes, flag
     * bits), value lengths (varints, -1 = NULL), values; the column structs, and their entries
     * added to {@code entries} for the record checks. */
    private Object[] group(byte[] data, int start, int end, Dictionary dictionary, List<ColumnEntry> entries) {
        pos = start;
        long count = uvarint(data, end);
        if (count < 0 || count > (end - pos) / 4) { // each column takes at least 4 bytes
            throw NOT_SURE;
        }
        int n = (int) count;
        Shape shape = shape(data, end, n, dictionary);
        long[] lengths = new long[n];
        for (int i = 0; i < n; i++) {
            lengths[i] = unzigzag(uvarint(data, end));
        }
        Object[] out = new Object[n];
        for (int i = 0; i < n; i++) {
            long length = lengths[i];
            Long integer = null;
            BigDecimal unsigned = null;
            Double number = null;
            String text = null;
            byte[] bytes = null;
            if (length != -1) {
                if (length < 0 || length > end - pos) {
                    throw NOT_SURE;
                }
                int len = (int) length;
                switch (shape.rules[i]) {
                    case CraftConfig.ZIGZAG:
                        integer = unzigzag(uvarintExactly(data, pos, len));
                        break;
                    case CraftConfig.UVARINT:
                        long u = uvarintExactly(data, pos, len);
                        if (u >= 0) {
                            integer = u;
                        } else {
                            unsigned = unsigned(u);
                        }
                        break;
                    case CraftConfig.FLOAT32:
                        double wide = float64(data, pos, len);
                        float narrow = (float) wide; // rounds to nearest, as Python's struct 'f'
                        if (Float.isInfinite(narrow) && !Double.isInfinite(wide)) {
                            throw NOT_SURE; // past the float32 range: the Python decoder refuses it
                        }
                        number = (double) narrow;
                        break;
                    case CraftConfig.FLOAT64:
                        number = float64(data, pos, len);
                        break;
                    case CraftConfig.UTF8:
                        text = text(data, pos, len);
                        break;
                    case CraftConfig.BYTES:
                        bytes = Arrays.copyOfRange(data, pos, pos + len);
                        break;
                    default: // NULL: the bytes are skipped, the value is NULL
                        break;
                }
                pos += len;
            }
            int code = shape.codes[i];
            int flags = shape.flags[i];
            entries.add(ColumnEntry.decoded(shape.names[i], config.typeTexts[code], flags, integer, unsigned, number,
                    text, bytes, null));
            out[i] = ColumnEntry.sparkColumn(shape.names8[i], config.typeNames[code], flags,
                    integer, unsigned, number, text, bytes, null);
        }
        if (pos != end) {
            throw NOT_SURE;
        }
        return out;
    }

    /** The shape at {@link #pos}: a known one whose bytes it starts with, else read and kept. */
    private Shape shape(byte[] data, int end, int n, Dictionary dictionary) {
        ArrayList<Shape> known = dictionary.shapes.computeIfAbsent(n, k -> new ArrayList<>());
        for (Shape s : known) {
            int prefixEnd = pos + s.prefix.length;
            if (prefixEnd <= end && Arrays.equals(s.prefix, 0, s.prefix.length, data, pos, prefixEnd)) {
                pos = prefixEnd;
                return s;
            }
        }
        int start = pos;
        String[] names = new String[n];
        long id = 0;
        for (int i = 0; i < n; i++) {
            id += unzigzag(uvarint(data, end));
            if (id < 0 || id >= dictionary.terms.length) {
                throw NOT_SURE;
            }
            names[i] = dictionary.terms[(int) id];
        }
        long[] codes = new long[n];
        for (int i = 0; i < n; i++) {
            codes[i] = uvarint(data, end);
        }
        int[] codes32 = new int[n];
        int[] flags = new int[n];
        int[] rules = new int[n];
        for (int i = 0; i < n; i++) {
            long bits = uvarint(data, end);
            rules[i] = config.rule(codes[i], bits);
            if (rules[i] < 0) {
                throw NOT_SURE;
            }
            codes32[i] = (int) codes[i];
            flags[i] = (int) bits;
        }
        Shape made = new Shape(Arrays.copyOfRange(data, start, pos), names, codes32, flags, rules);
        if (known.size() >= SHAPES_PER_COUNT) {
            known.remove(known.size() - 1);
        }
        known.add(0, made);
        return made;
    }

    // -- primitives ------------------------------------------------------------------------

    private static long unzigzag(long u) {
        return (u >>> 1) ^ -(u & 1);
    }

    private static BigDecimal unsigned(long u) {
        BigInteger v = BigInteger.valueOf(u);
        return new BigDecimal(u >= 0 ? v : v.add(TWO_64));
    }

    /** The uvarint at {@link #pos}, before {@code end}; its 64 bits as a long (unsigned). */
    private long uvarint(byte[] data, int end) {
        long result = 0;
        for (int shift = 0; ; shift += 7) {
            if (pos >= end) {
                throw NOT_SURE;
            }
            int b = data[pos++] & 0xFF;
            if (shift == 63 && b > 1) {
                throw NOT_SURE;
            }
            result |= (long) (b & 0x7F) << shift;
            if (b < 0x80) {
                return result;
            }
        }
    }

    /** Every uvarint of {@code data[start:end]}. */
    private long[] uvarints(byte[] data, int start, int end) {
        long[] out = new long[Math.max(0, end - start)];
        int n = 0;
        pos = start;
        while (pos < end) {
            out[n++] = uvarint(data, end);
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    /** Every uvarint of the size tables, each below 2^31 (larger: left to Python). */
    private long[] smallUvarints(byte[] data, int start, int end) {
        long[] out = uvarints(data, start, end);
        for (long v : out) {
            if (v < 0 || v > Integer.MAX_VALUE) {
                throw NOT_SURE;
            }
        }
        return out;
    }

    /** The uvarint that is all of {@code data[at:at+len]} (a value's bytes). */
    private static long uvarintExactly(byte[] data, int at, int len) {
        if (len < 1 || len > 10) {
            throw NOT_SURE;
        }
        long result = 0;
        for (int i = 0; i < len; i++) {
            int b = data[at + i] & 0xFF;
            boolean lastByte = i == len - 1;
            if ((b < 0x80) != lastByte || i == 9 && b > 1) {
                throw NOT_SURE;
            }
            result |= (long) (b & 0x7F) << (7 * i);
        }
        return result;
    }

    private static double float64(byte[] data, int at, int len) {
        if (len != 8) {
            throw NOT_SURE;
        }
        long bits = 0;
        for (int i = 7; i >= 0; i--) {
            bits = (bits << 8) | (data[at + i] & 0xFF);
        }
        return Double.longBitsToDouble(bits);
    }

    /** Strict UTF-8, as Python's {@code bytes.decode()}: any fault leaves the message to Python. */
    private String text(byte[] data, int at, int len) {
        boolean ascii = true;
        for (int i = at; i < at + len; i++) {
            if (data[i] < 0) {
                ascii = false;
                break;
            }
        }
        if (ascii) {
            return new String(data, at, len, StandardCharsets.US_ASCII);
        }
        try {
            return utf8.reset().decode(ByteBuffer.wrap(data, at, len)).toString();
        } catch (CharacterCodingException e) {
            throw NOT_SURE;
        }
    }
}
