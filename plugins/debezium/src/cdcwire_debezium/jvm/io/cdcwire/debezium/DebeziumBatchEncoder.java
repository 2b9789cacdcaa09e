package io.cdcwire.debezium;

import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.JsonText;
import io.cdcwire.spark.RecordChecks;
import io.cdcwire.spark.RowMessages;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * debezium's batch encoder, a {@link RowMessages}: debezium writes one message per row event, so each message
 * closes on its own row (one event), with the row's key document (its handle-key columns) and
 * value document, as {@code cdcwire_debezium.encoder.DebeziumEncoder} writes them. Nothing is
 * ever held open, so a row Java is not sure of goes to Python alone: the record checks, a column
 * without a value rule of Java's or whose type text it does not read ({@link DebeziumColumn}), a
 * value a rule is not sure of, a text JSON cannot carry, a message over max-message-bytes. DDL
 * events are Java's too ({@link DebeziumDdl}; those of a type TiCDC skips are Python's, which writes
 * none), resolved events without the TiDB extension (no message at all) Python's. The resolved columns and schema texts of a table's
 * image shape are kept ({@code Shape}): rows of a table share them, as the Python encoder's cache.
 */
public final class DebeziumBatchEncoder extends RowMessages {
    private static final int HANDLE_KEY = 0x02;
    private static final BigDecimal U64_MAX = new BigDecimal(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE));

    private final DebeziumWriting cfg;
    private final RecordChecks checks;

    public DebeziumBatchEncoder(String configText) {
        cfg = new DebeziumWriting(configText);
        checks = new RecordChecks(cfg.checks);
    }

    /** With the TiDB extension, the watermark (op "m") as the Python encoder writes it; without it the
     * Python encoder writes no message, so the event is Python's. */
    @Override
    public boolean watermark(BigDecimal commitTs, long now) {
        if (cfg.watermarkKey == null || commitTs == null || commitTs.signum() < 0
                || commitTs.stripTrailingZeros().scale() > 0 || commitTs.compareTo(U64_MAX) > 0) {
            return false; // Python's, or Python's error
        }
        BigInteger ts = commitTs.toBigInteger();
        StringBuilder v = new StringBuilder(cfg.disableSchema ? 384 : 2560);
        cfg.watermarkValue.fill(v, ts.toString(), ts.shiftRight(18).toString(), Long.toString(now));
        return closeIfFits(cfg.watermarkKey.getBytes(StandardCharsets.UTF_8),
                v.toString().getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public boolean encodesDdl() {
        return cfg.ddl != null;
    }

    /** A DDL's message as the Python encoder writes it ({@link DebeziumDdl}); false where it is Python's. */
    @Override
    public boolean ddl(BigDecimal commitTs, String schema, String table, String ddlType, String query, long now) {
        if (commitTs == null || commitTs.signum() < 0 || commitTs.stripTrailingZeros().scale() > 0
                || commitTs.compareTo(U64_MAX) > 0 || schema != null && schema.indexOf('\0') >= 0
                || table != null && table.indexOf('\0') >= 0) {
            return false; // the record checks' or Python's own error
        }
        String[] message = cfg.ddl.message(commitTs.toBigInteger(), schema, table, ddlType, query, now);
        return message != null && closeIfFits(message[0].getBytes(StandardCharsets.UTF_8),
                message[1].getBytes(StandardCharsets.UTF_8));
    }

    /** Closes the message, unless it is over max-message-bytes (Python's error: false). */
    private boolean closeIfFits(byte[] key, byte[] value) {
        if ((long) key.length + value.length + cfg.overhead > cfg.maxMessageBytes) {
            return false;
        }
        close(key, value);
        return true;
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
        Shape shape = shapeOf(schema, table, image);
        if (shape == null || shape.db == null) {
            return false;
        }
        DebeziumColumn[] fields = shape.columns;
        BigInteger ts = commitTs.toBigInteger();
        StringBuilder v = valueText;
        v.setLength(0);
        v.append("{\"payload\":{\"source\":");
        cfg.source.fill(v, shape.db, shape.table, ts.toString(), ts.shiftRight(18).toString());
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
                DebeziumColumn[] preFields = Shape.same(preColumns, image) ? fields : columnsOf(preColumns);
                v.append(",\"before\":");
                ok = preFields != null && values(v, preColumns, preFields, false);
            }
            v.append(",\"after\":");
            ok = ok && values(v, columns, fields, false);
        }
        v.append('}');
        StringBuilder k = keyText;
        k.setLength(0);
        k.append("{\"payload\":");
        ok = ok && values(k, image, fields, true);
        if (!ok || shape.keyTail == null && !schemas(shape, schema, table, image)) {
            return false;
        }
        byte[] key = joined(k, shape.keyTail), value = joined(v, shape.valueTail);
        if (shape.byValue) {
            shape.keyTail = shape.valueTail = null; // the next row's values pick its own
        }
        return closeIfFits(key, value);
    }

    /** The rows' texts before their schemas, reused: a message's text is built in place, not grown anew. */
    private final StringBuilder keyText = new StringBuilder(256), valueText = new StringBuilder(2048);

    /** A message's bytes: its text's UTF-8, then its tail's bytes as they are. Why not one text: the
     * tail (the schema, most of a message) is UTF-8 already, and copying it into the text would
     * widen the whole text to UTF-16 wherever one character is past Latin-1, then encode it again. */
    private static byte[] joined(StringBuilder text, byte[] tail) {
        byte[] head = text.toString().getBytes(StandardCharsets.UTF_8);
        byte[] out = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, out, head.length, tail.length);
        return out;
    }

    /**
     * The resolved columns of the last image shape of one table (names, types, flags and type
     * texts; rows of a table share them) and its key and value schema texts, made once, or for
     * each row where a column's schema depends on its value (a DATETIME without a type text).
     */
    private static final class Shape {
        final List<ColumnEntry> image;
        final DebeziumColumn[] columns;
        final boolean byValue;
        /** The schema and table names as JSON strings; null where JSON cannot carry one. */
        final String db;
        final String table;
        /** What follows the key's and the value's payload, as UTF-8: the schema, if any, and the closing brace. */
        byte[] keyTail;
        byte[] valueTail;

        Shape(String schema, String table, List<ColumnEntry> image, DebeziumColumn[] columns) {
            this.image = image;
            this.columns = columns;
            StringBuilder db = new StringBuilder(), tb = new StringBuilder();
            boolean named = JsonText.append(db, schema) && JsonText.append(tb, table);
            this.db = named ? db.toString() : null;
            this.table = named ? tb.toString() : null;
            boolean any = false;
            for (DebeziumColumn c : columns) {
                any |= c.schemaByValue();
            }
            byValue = any;
        }

        /** Two images of one shape. */
        static boolean same(List<ColumnEntry> a, List<ColumnEntry> b) {
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (a.get(i) != b.get(i) && !a.get(i).sameShape(b.get(i))) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Shapes by schema and table; emptied past {@link #SHAPES} (a bound, not an LRU). */
    private final Map<String, Map<String, Shape>> shapes = new HashMap<>();
    private int shapeCount;
    private static final int SHAPES = 1024;

    /** The shape of a table's image, or null when a column has no rule of Java's. */
    private Shape shapeOf(String schema, String table, List<ColumnEntry> image) {
        Map<String, Shape> ofSchema = shapes.computeIfAbsent(schema, s -> new HashMap<>());
        Shape known = ofSchema.get(table);
        if (known != null && Shape.same(known.image, image)) {
            return known;
        }
        DebeziumColumn[] columns = columnsOf(image);
        if (columns == null) {
            return null;
        }
        if (known == null && ++shapeCount > SHAPES) {
            shapes.clear();
            shapeCount = 1;
            ofSchema = shapes.computeIfAbsent(schema, s -> new HashMap<>());
        }
        Shape made = new Shape(schema, table, image, columns);
        ofSchema.put(table, made);
        return made;
    }

    /** Each column's type as Java writes it, or null when one has none of Java's. */
    private DebeziumColumn[] columnsOf(List<ColumnEntry> image) {
        DebeziumColumn[] out = new DebeziumColumn[image.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = DebeziumColumn.of(cfg, image.get(i));
            if (out[i] == null) {
                return null;
            }
        }
        return out;
    }

    /** Fills in the shape's key and value tails for this image (their schemas, unless disabled);
     * false where Java has no schema of a column. */
    private boolean schemas(Shape shape, String schema, String table, List<ColumnEntry> image) {
        if (cfg.disableSchema) {
            shape.keyTail = shape.valueTail = CLOSE;
            return true;
        }
        String prefix = prefix(schema, table);
        StringBuilder all = new StringBuilder(), keys = new StringBuilder();
        if (!fieldSchemas(all, image, shape.columns, false) || !fieldSchemas(keys, image, shape.columns, true)) {
            return false;
        }
        StringBuilder k = new StringBuilder(keys.length() + 128), v = new StringBuilder(2 * all.length() + 1024);
        cfg.keySchema.fill(k.append(",\"schema\":"), prefix, keys.toString());
        cfg.valueSchema.fill(v.append(",\"schema\":"), prefix, all.toString());
        shape.keyTail = k.append('}').toString().getBytes(StandardCharsets.UTF_8);
        shape.valueTail = v.append('}').toString().getBytes(StandardCharsets.UTF_8);
        return true;
    }

    private static final byte[] CLOSE = {'}'};

    /** An image's values as a JSON object (its handle-key columns only with {@code keysOnly}); false where
     * Java is not sure of one. */
    private static boolean values(StringBuilder out, List<ColumnEntry> image, DebeziumColumn[] fields,
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
            if (!fields[i].value(out, c)) {
                return false;
            }
        }
        out.append('}');
        return true;
    }

    /** The field schemas of an image (its handle-key columns only with {@code keysOnly}), comma-separated in brackets. */
    private static boolean fieldSchemas(StringBuilder out, List<ColumnEntry> image, DebeziumColumn[] fields,
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
            String text = fields[i].schema(c);
            if (text == null) {
                return false;
            }
            out.append(text).append("\"field\":");
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
}
