package io.cdcwire.open;

import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.JsonText;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * The key JSON and value JSON of one open-protocol row event, as {@code cdcwire_open.event_text}
 * writes them (key {@code {"ts":..,"scm":..,"tbl":..,"ptn":..,"t":1}}, value {@code {"u":{..},"p":{..}}}
 * or {@code {"d":{..}}}, each column {@code "name":{"t":code,"h":true,"f":flags,"v":value}}, the
 * columns in the event's order, Go's HTML-safe escapes over the document); null where Java is not
 * sure of a text (the row is then Python's).
 */
final class OpenRowText {
    private static final BigDecimal U64_MAX = new BigDecimal(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE));

    private OpenRowText() {
    }

    /** The key JSON of a row, or null. */
    static byte[] key(BigInteger ts, String schema, String table, Long tableId) {
        return key(ts, schema, table, tableId, 1);
    }

    /** The key JSON of an event of type {@code kind} (1 a row, 2 a DDL: {@code EventText._key_tail}), or null. */
    static byte[] key(BigInteger ts, String schema, String table, Long tableId, int kind) {
        StringBuilder tail = new StringBuilder();
        if (!schema.isEmpty()) {
            tail.append(",\"scm\":");
            if (!JsonText.append(tail, schema)) {
                return null;
            }
        }
        if (!table.isEmpty()) {
            tail.append(",\"tbl\":");
            if (!JsonText.append(tail, table)) {
                return null;
            }
        }
        if (tableId != null) {
            tail.append(",\"ptn\":").append(tableId.longValue());
        }
        tail.append(",\"t\":").append(kind).append('}');
        return ("{\"ts\":" + ts + GoText.htmlEscaped(tail)).getBytes(StandardCharsets.UTF_8);
    }

    /** The value JSON of a row sent with images {@code news} / {@code olds} (either null), or null. */
    static byte[] value(OpenWriting cfg, List<ColumnEntry> news, List<ColumnEntry> olds) {
        StringBuilder text = new StringBuilder(256);
        if (news == null) {
            text.append("{\"d\":{");
            if (!image(cfg, text, olds)) {
                return null;
            }
        } else {
            text.append("{\"u\":{");
            if (!image(cfg, text, news)) {
                return null;
            }
            if (olds != null) {
                text.append("},\"p\":{");
                if (!image(cfg, text, olds)) {
                    return null;
                }
            }
        }
        text.append("}}");
        return GoText.htmlEscaped(text).getBytes(StandardCharsets.UTF_8);
    }

    private static boolean image(OpenWriting cfg, StringBuilder out, List<ColumnEntry> image) {
        boolean first = true;
        for (ColumnEntry c : image) {
            OpenWriting.TypeWriting w = c == null ? null : cfg.types.get(c.type);
            if (w == null || c.flags == null || c.name == null) {
                return false;
            }
            int flags = c.flags;
            if (!first) {
                out.append("},");
            }
            first = false;
            if (!JsonText.append(out, c.name)) {
                return false;
            }
            out.append(":{\"t\":").append(w.code);
            if ((flags & cfg.handleKeyFlag) != 0) {
                out.append(",\"h\":true");
            }
            out.append(",\"f\":").append(flags).append(",\"v\":");
            if (c.fieldsSet == 0) {
                out.append("null");
            } else if (c.fieldsSet > 1 || !value(cfg, out, w.rules[(flags & cfg.binaryFlag) != 0 ? 1 : 0], c)) {
                return false;
            }
        }
        if (!first) {
            out.append('}');
        }
        return true;
    }

    /** A non-null value by its column's rule, as {@code column_values}' writers write it; false: Python's. */
    private static boolean value(OpenWriting cfg, StringBuilder out, int rule, ColumnEntry c) {
        switch (rule) {
            case OpenWriting.INT:
                if (c.intValue != null) {
                    out.append(c.intValue.longValue());
                    return true;
                }
                if (c.uintValue != null && c.uintValue.signum() >= 0 && c.uintValue.compareTo(U64_MAX) <= 0) {
                    out.append(c.uintValue.toBigIntegerExact());
                    return true;
                }
                return false;
            case OpenWriting.FLOAT32:
            case OpenWriting.DOUBLE: {
                if (c.doubleValue == null) {
                    return false; // an int in a float column: Python's float(v)
                }
                String text = rule == OpenWriting.FLOAT32 ? GoText.float32(c.doubleValue) : GoText.float64(c.doubleValue);
                if (text == null) {
                    return false;
                }
                out.append(text);
                return true;
            }
            case OpenWriting.TEXT:
                return c.stringValue != null && JsonText.append(out, c.stringValue);
            case OpenWriting.QUOTED: {
                byte[] bytes = c.binaryValue != null ? c.binaryValue : utf8(c.stringValue);
                String quoted = bytes == null ? null : GoText.quote(cfg, bytes);
                return quoted != null && JsonText.append(out, quoted);
            }
            case OpenWriting.BASE64: {
                byte[] bytes = c.binaryValue != null ? c.binaryValue : utf8(c.stringValue);
                if (bytes == null) {
                    return false;
                }
                out.append('"').append(Base64.getEncoder().encodeToString(bytes)).append('"');
                return true;
            }
            default:
                return false;
        }
    }

    /** UTF-8 of a text, null for none or for a lone surrogate (Python's encode refuses it). */
    private static byte[] utf8(String text) {
        if (text == null) {
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (Character.isHighSurrogate(ch) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(ch)) {
                return null;
            }
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
