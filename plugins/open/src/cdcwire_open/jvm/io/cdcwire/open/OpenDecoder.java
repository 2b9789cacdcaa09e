package io.cdcwire.open;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.JsonBytes;
import io.cdcwire.spark.MessageDecoder;
import io.cdcwire.spark.RecordChecks;
import io.cdcwire.spark.SureJson;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One open-protocol message (a key of length-prefixed key documents, a value of as many value
 * documents) read into its events' rows ({@link #readAll}: a message packs a batch), for the
 * messages it is sure of: every event a row change or a resolved event whose key and value
 * read, whose columns' values read by the Python decoder's rules ({@link OpenValues}) and
 * whose rows pass the record checks. {@link #readAll} gives null for every other message:
 * DDL, claim-check pointers ({@code "ccl"}), handle-key-only rows ({@code "ohk":true}), and
 * anything malformed or unusual. The Python decoder ({@code cdcwire_open.decoder}) then reads
 * the whole message in its place and words what is wrong with it: Java never refuses a
 * message itself, so the error a reader sees is the Python decoder's.
 *
 * <p>Each document is read only where it is sure to be read as orjson reads it: strict UTF-8
 * starting with an object ({@link JsonBytes}), no key twice in an object, nothing after it,
 * no integer past 64 bits, no float past the double range, no lone surrogate, nested at most
 * {@link SureJson#DEPTH} deep ({@link SureJson}, integers past 64 bits read as orjson
 * reads them, as a float, for the value rules to judge).
 */
public final class OpenDecoder implements MessageDecoder {
    private static final long VERSION = 1;
    private static final int ROW = 1, RESOLVED_EVENT = 3;
    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final UTF8String INSERT = UTF8String.fromString("insert");
    private static final UTF8String UPDATE = UTF8String.fromString("update");
    private static final UTF8String DELETE = UTF8String.fromString("delete");
    private static final UTF8String RESOLVED = UTF8String.fromString("resolved");
    private static final UTF8String EMPTY = UTF8String.fromString("");

    private final OpenConfig config;
    private final RecordChecks checks;

    /** Made in each task by the core's {@code MessageDecoding} with the configuration text. */
    public OpenDecoder(String configText) {
        config = new OpenConfig(configText);
        checks = new RecordChecks(config.checks);
    }

    @Override
    public Object[][] readAll(byte[] key, byte[] value) {
        if (key == null || key.length < 8 || longAt(key, 0) != VERSION) {
            return null;
        }
        byte[] values = value == null ? new byte[0] : value;
        List<Object[]> events = new ArrayList<>();
        int kpos = 8;
        int vpos = 0;
        while (kpos < key.length) {
            int kend = segmentEnd(key, kpos);
            int vend = vpos < values.length ? segmentEnd(values, vpos) : -1;
            if (kend < 0 || vend < 0) {
                return null;
            }
            Object[] event = event(key, kpos + 8, kend, values, vpos + 8, vend);
            if (event == null) {
                return null;
            }
            events.add(event);
            kpos = kend;
            vpos = vend;
        }
        if (events.isEmpty() || vpos != values.length) {
            return null;
        }
        return events.toArray(new Object[0][]);
    }

    /** The end of the [u64 BE length, bytes] segment at {@code pos}, or -1 when it runs past the end. */
    private static int segmentEnd(byte[] buf, int pos) {
        if (buf.length - pos < 8) {
            return -1;
        }
        long n = longAt(buf, pos);
        if (n < 0 || n > buf.length - pos - 8) {
            return -1;
        }
        return pos + 8 + (int) n;
    }

    private static long longAt(byte[] buf, int pos) {
        long n = 0;
        for (int i = pos; i < pos + 8; i++) {
            n = (n << 8) | (buf[i] & 0xFF);
        }
        return n;
    }

    /** One event's row from its key document and value document, or null. */
    private Object[] event(byte[] key, int kstart, int kend, byte[] value, int vstart, int vend) {
        JsonNode k = SureJson.object(key, kstart, kend, true);
        if (k == null) {
            return null;
        }
        BigDecimal ts = unsigned(k.get("ts"));
        JsonNode kind = k.get("t");
        if (ts == null || kind == null || !kind.isInt()) {
            return null;
        }
        if (kind.intValue() == RESOLVED_EVENT) {
            return vend == vstart ? resolved(ts) : null;
        }
        if (kind.intValue() != ROW) {
            return null; // a DDL (or no event): the Python decoder's
        }
        String schema = text(k, "scm");
        String table = text(k, "tbl");
        JsonNode ptn = k.get("ptn");
        JsonNode ohk = k.get("ohk");
        JsonNode ccl = k.get("ccl");
        if (schema == null || table == null
                || ptn != null && !ptn.isNull() && !(ptn.isIntegralNumber() && ptn.canConvertToLong())
                || ohk != null && !ohk.isNull() && !(ohk.isBoolean() && !ohk.booleanValue())
                || ccl != null && !ccl.isNull()) {
            return null; // handle-key-only rows and claim-check pointers: the Python decoder's
        }
        JsonNode body = SureJson.object(value, vstart, vend, true);
        if (body == null) {
            return null;
        }
        JsonNode news = present(body.get("u"));
        JsonNode olds = present(body.get("p"));
        JsonNode deleted = present(body.get("d"));
        UTF8String what;
        if (deleted != null) {
            if (news != null || olds != null) {
                return null;
            }
            olds = deleted;
            what = DELETE;
        } else if (news == null) {
            return null;
        } else {
            what = olds == null ? INSERT : UPDATE;
        }
        List<ColumnEntry> newEntries = news == null ? null : new ArrayList<>(news.size());
        List<ColumnEntry> oldEntries = olds == null ? null : new ArrayList<>(olds.size());
        Object[] newRow = news == null ? null : image(news, newEntries);
        Object[] oldRow = olds == null ? null : image(olds, oldEntries);
        if (news != null && newRow == null || olds != null && oldRow == null
                || !checks.plainRow(what.toString(), ts, schema, table, newEntries, oldEntries, false)) {
            return null;
        }
        Object[] out = new Object[EVENT_FIELDS];
        out[KIND] = what;
        out[COMMIT_TS] = Decimal.apply(ts, 20, 0);
        out[SCHEMA] = schema.isEmpty() ? EMPTY : UTF8String.fromString(schema);
        out[TABLE] = table.isEmpty() ? EMPTY : UTF8String.fromString(table);
        out[TABLE_ID] = ptn == null || ptn.isNull() ? null : ptn.longValue();
        out[COLUMNS] = newRow == null ? null : new GenericArrayData(newRow);
        out[PRE_COLUMNS] = oldRow == null ? null : new GenericArrayData(oldRow);
        out[KEY_ONLY] = false;
        return out;
    }

    private static Object[] resolved(BigDecimal ts) {
        Object[] out = new Object[EVENT_FIELDS];
        out[KIND] = RESOLVED;
        out[COMMIT_TS] = Decimal.apply(ts, 20, 0);
        out[KEY_ONLY] = false;
        return out;
    }

    /** A JSON null reads as an absent field, as the Python decoder's {@code dict.get} does. */
    private static JsonNode present(JsonNode node) {
        return node == null || node.isNull() ? null : node;
    }

    /** {@code "scm"} / {@code "tbl"}: absent is "" (Go's omitempty), a string as it is, else null. */
    private static String text(JsonNode key, String field) {
        JsonNode node = key.get(field);
        if (node == null) {
            return "";
        }
        return node.isTextual() ? node.textValue() : null;
    }

    /** An integer 0..2^64-1, or null. */
    private static BigDecimal unsigned(JsonNode node) {
        if (node == null || !node.isIntegralNumber()) {
            return null;
        }
        if (node.canConvertToLong()) {
            return node.longValue() < 0 ? null : BigDecimal.valueOf(node.longValue());
        }
        BigInteger big = node.bigIntegerValue();
        return big.signum() < 0 || big.compareTo(U64_MAX) > 0 ? null : new BigDecimal(big);
    }

    /** An image's column structs in its order, its entries added for the record checks; null
     * where a column does not read. */
    private Object[] image(JsonNode image, List<ColumnEntry> entries) {
        if (!image.isObject()) {
            return null;
        }
        Object[] out = new Object[image.size()];
        int i = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = image.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Object column = column(e.getKey(), e.getValue(), entries);
            if (column == null) {
                return null;
            }
            out[i++] = column;
        }
        return out;
    }

    /** One column {@code {"t", "h"?, "f"?, "v"}} as the Python decoder reads it, or null. */
    private Object column(String name, JsonNode col, List<ColumnEntry> entries) {
        if (!col.isObject()) {
            return null;
        }
        JsonNode t = col.get("t");
        JsonNode f = present(col.get("f"));
        JsonNode h = present(col.get("h"));
        JsonNode raw = col.get("v");
        if (t == null || !t.isInt() || raw == null
                || f != null && !(f.isInt() && f.intValue() >= 0) || h != null && !h.isBoolean()) {
            return null;
        }
        OpenConfig.Reading[] both = config.readings.get(t.intValue());
        int flags = f == null ? 0 : f.intValue();
        OpenConfig.Reading reading = both == null ? null : both[(flags & config.binaryFlag) != 0 ? 1 : 0];
        if (reading == null) {
            return null;
        }
        if (h != null && h.booleanValue()) {
            flags |= config.handleKeyFlag;
        }
        OpenValues.Value v = raw.isNull() ? new OpenValues.Value() : OpenValues.read(reading.rule, raw);
        if (v == null) {
            return null;
        }
        entries.add(ColumnEntry.decoded(name, reading.type, flags, v.integer, v.unsigned, v.number, v.text, v.bytes,
                null));
        return ColumnEntry.sparkColumn(UTF8String.fromString(name), reading.type8, flags,
                v.integer, v.unsigned, v.number, v.text, v.bytes, null);
    }

}
