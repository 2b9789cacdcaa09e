package io.cdcwire.debezium;

import io.cdcwire.spark.BatchEncoder;
import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.JsonText;
import io.cdcwire.spark.RecordChecks;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.List;

/**
 * debezium's {@link BatchEncoder}: debezium writes one message per row event, so each message
 * closes on its own row (one event), with the row's key document (its handle-key columns) and
 * value document, as {@code cdcwire_debezium.encoder.DebeziumEncoder} writes them. Nothing is
 * ever held open, so a row Java is not sure of goes to Python alone: the record checks, a column
 * without a value rule of Java's ({@link DebeziumWriting}), a text JSON cannot carry, a message
 * over max-message-bytes. DDL and resolved events (the watermark) are Python's.
 */
public final class DebeziumBatchEncoder implements BatchEncoder {
    private static final int HANDLE_KEY = 0x02;

    private final DebeziumWriting cfg;
    private final RecordChecks checks;
    private final ArrayDeque<Message> closed = new ArrayDeque<>();

    public DebeziumBatchEncoder(String configText) {
        cfg = new DebeziumWriting(configText);
        checks = new RecordChecks(cfg.checks);
    }

    @Override
    public void start(String topic, int partition) {
        closed.clear();
    }

    @Override
    public boolean watermark(BigDecimal commitTs, long now) {
        return false; // Python's: nothing without the extension, op "m" with it
    }

    @Override
    public boolean row(String kind, BigDecimal commitTs, String schema, String table, Long tableId,
                       List<ColumnEntry> columns, List<ColumnEntry> preColumns, Boolean handleKeyOnly, byte half,
                       long now) {
        if (!checks.plainRow(kind, commitTs, schema, table, columns, preColumns, handleKeyOnly)) {
            return false;
        }
        if (half == 1) {
            kind = "delete";
            columns = null;
        } else if (half == 2) {
            kind = "insert";
            preColumns = null;
        }
        List<ColumnEntry> image = columns != null ? columns : preColumns;
        DebeziumWriting.Field[] fields = fieldsOf(image);
        if (fields == null) {
            return false;
        }
        BigInteger ts = commitTs.toBigInteger();
        StringBuilder v = new StringBuilder(512);
        v.append("{\"payload\":{\"source\":");
        StringBuilder db = new StringBuilder(), tb = new StringBuilder();
        if (!JsonText.append(db, schema) || !JsonText.append(tb, table)) {
            return false;
        }
        cfg.source.fill(v, db.toString(), tb.toString(), ts.toString(), ts.shiftRight(18).toString());
        v.append(",\"ts_ms\":").append(now).append(",\"transaction\":null,\"op\":");
        boolean ok;
        if ("insert".equals(kind)) {
            v.append("\"c\",\"before\":null,\"after\":");
            ok = values(v, columns, fields, false);
        } else if ("delete".equals(kind)) {
            v.append("\"d\",\"after\":null,\"before\":");
            ok = values(v, preColumns, fields, false);
        } else {
            v.append("\"u\"");
            ok = true;
            if (cfg.outputOldValue) {
                DebeziumWriting.Field[] preFields = fieldsOf(preColumns);
                v.append(",\"before\":");
                ok = preFields != null && values(v, preColumns, preFields, false);
            }
            v.append(",\"after\":");
            ok = ok && values(v, columns, fields, false);
        }
        v.append('}');
        StringBuilder k = new StringBuilder(128);
        k.append("{\"payload\":");
        ok = ok && values(k, image, fields, true);
        if (!ok) {
            return false;
        }
        if (!cfg.disableSchema) {
            String prefix = prefix(schema, table);
            StringBuilder all = new StringBuilder(), keys = new StringBuilder();
            if (!fieldSchemas(all, image, fields, false) || !fieldSchemas(keys, image, fields, true)) {
                return false;
            }
            k.append(",\"schema\":");
            cfg.keySchema.fill(k, prefix, keys.toString());
            v.append(",\"schema\":");
            cfg.valueSchema.fill(v, prefix, all.toString());
        }
        k.append('}');
        v.append('}');
        byte[] key = k.toString().getBytes(StandardCharsets.UTF_8);
        byte[] value = v.toString().getBytes(StandardCharsets.UTF_8);
        if ((long) key.length + value.length + cfg.overhead > cfg.maxMessageBytes) {
            return false; // Python's error
        }
        closed.add(new Message(key, value, 1));
        return true;
    }

    /** Each column's field, or null when one has none of Java's. */
    private DebeziumWriting.Field[] fieldsOf(List<ColumnEntry> image) {
        DebeziumWriting.Field[] out = new DebeziumWriting.Field[image.size()];
        for (int i = 0; i < out.length; i++) {
            ColumnEntry c = image.get(i);
            out[i] = cfg.field(c.type, c.flags);
            if (out[i] == null) {
                return null;
            }
        }
        return out;
    }

    /** An image's values as a JSON object (its handle-key columns only with {@code keysOnly}); false where
     * Java is not sure of one. */
    private static boolean values(StringBuilder out, List<ColumnEntry> image, DebeziumWriting.Field[] fields,
                                  boolean keysOnly) {
        out.append('{');
        boolean first = true;
        for (int i = 0; i < image.size(); i++) {
            ColumnEntry c = image.get(i);
            if (keysOnly && !c.has(HANDLE_KEY)) {
                continue;
            }
            if (!first) {
                out.append(',');
            }
            first = false;
            if (!JsonText.append(out, c.name)) {
                return false;
            }
            out.append(':');
            if (!value(out, c, fields[i].rule)) {
                return false;
            }
        }
        out.append('}');
        return true;
    }

    private static boolean value(StringBuilder out, ColumnEntry c, int rule) {
        if (c.fieldsSet == 0) {
            out.append("null");
            return true;
        }
        switch (rule) {
            case DebeziumWriting.SAME:
                if (c.intValue != null) {
                    out.append(c.intValue.longValue());
                    return true;
                }
                if (c.uintValue != null) {
                    out.append(c.uintValue.toBigInteger());
                    return true;
                }
                return c.stringValue != null && JsonText.append(out, c.stringValue);
            case DebeziumWriting.U64:
                BigInteger n = c.number();
                if (n == null) {
                    return false;
                }
                out.append(n.longValue()); // the int64 of its bits: 2^64-1 as -1
                return true;
            case DebeziumWriting.BASE64:
                if (c.binaryValue == null) {
                    return false;
                }
                out.append('"').append(Base64.getEncoder().encodeToString(c.binaryValue)).append('"');
                return true;
            case DebeziumWriting.DOUBLE:
                return c.doubleValue != null && number(out, c.doubleValue);
            case DebeziumWriting.DECIMAL:
                // Python's float() of the text the record checks let through: both round correctly
                return c.stringValue != null && number(out, Double.parseDouble(c.stringValue));
            default:
                return false;
        }
    }

    /** A finite double as orjson writes it; false for one JSON has no number for (Python's error). */
    private static boolean number(StringBuilder out, double x) {
        if (!Double.isFinite(x)) {
            return false;
        }
        out.append(JsonFloat.of(x));
        return true;
    }

    /** The field schemas of an image (its handle-key columns only with {@code keysOnly}), comma-separated in brackets. */
    private static boolean fieldSchemas(StringBuilder out, List<ColumnEntry> image, DebeziumWriting.Field[] fields,
                                        boolean keysOnly) {
        out.append('[');
        boolean first = true;
        for (int i = 0; i < image.size(); i++) {
            ColumnEntry c = image.get(i);
            if (keysOnly && !c.has(HANDLE_KEY)) {
                continue;
            }
            if (!first) {
                out.append(',');
            }
            first = false;
            out.append(fields[i].schema).append("\"field\":");
            if (!JsonText.append(out, c.name)) {
                return false;
            }
            out.append('}');
        }
        out.append(']');
        return true;
    }

    /** {@code <cluster>.<db>.<table>}, sanitized as {@code cdcwire_debezium.names} does. */
    private String prefix(String schema, String table) {
        return sanitizeName(cfg.cluster) + "." + sanitizeName(schema) + "." + sanitize(table, true);
    }

    /** Debezium's SchemaNameAdjuster: a letter or {@code _} first (a digit gets a {@code _} before it,
     * anything else becomes one), then letters, digits and {@code _}. By code point, as Python. */
    static String sanitizeName(String name) {
        if (name.isEmpty()) {
            return name;
        }
        int first = name.codePointAt(0);
        String head;
        if (first < 0x80 && (Character.isLetter(first) || first == '_')) {
            head = new String(Character.toChars(first));
        } else {
            head = "_" + (first >= '0' && first <= '9' ? String.valueOf((char) first) : "");
        }
        return head + sanitize(name.substring(Character.charCount(first)), false);
    }

    /** Every code point but ASCII letters, digits, {@code _} (and {@code .} for a topic name) as {@code _}. */
    private static String sanitize(String text, boolean keepDots) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(cp -> {
            boolean keep = cp < 0x80 && (Character.isLetterOrDigit(cp) || cp == '_' || keepDots && cp == '.');
            out.append(keep ? (char) cp : '_');
        });
        return out.toString();
    }

    @Override
    public boolean leave(String kind) {
        return true; // nothing is ever open: Python's message of this event stands alone
    }

    @Override
    public boolean resumes(String kind) {
        return true; // Python's encoder holds no batch either
    }

    @Override
    public void finish() {
    }

    @Override
    public Message poll() {
        return closed.poll();
    }
}
