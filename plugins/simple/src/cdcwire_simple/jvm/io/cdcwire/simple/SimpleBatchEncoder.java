package io.cdcwire.simple;

import io.cdcwire.spark.BatchEncoder;
import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.FloatText;
import io.cdcwire.spark.JsonText;
import io.cdcwire.spark.RecordChecks;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * simple's {@link BatchEncoder}: one keyless message per row or resolved event, and a BOOTSTRAP
 * (the table's schema, a message of no event) before a row when {@code cdcwire_simple.encoder.SimpleEncoder}
 * sends one: before a table's first row and its first row of a new shape (a new schema version: its
 * commit ts, or one past the last), and, where this partition re-sends, before the row that makes
 * {@code send-bootstrap-in-msg-count} rows of the table since the last or comes
 * {@code send-bootstrap-interval-in-sec} after it (on the clock the core gives; the Python encoder
 * reads the wall clock).
 *
 * <p>The Python encoder keeps that state per table ({@code _Table}), and must continue exactly where
 * Java stops: so Java keeps the same state, DDL events included ({@link #ddl}: they change it), and
 * gives each event's messages as it makes them. At the first event it is not sure of (a row the
 * record checks or this port are not sure of, a DDL of a type it does not know, a message over
 * max-message-bytes) it changes nothing, hands the state as it was before that event over
 * ({@link #handOver}, plugin API 1.18: the Python encoder adopts it) and never {@link #resumes}: that
 * event and the rest of the partition are Python's, and the messages Java gave stay written.
 */
public final class SimpleBatchEncoder implements BatchEncoder {
    private static final BigInteger U64_LIMIT = BigInteger.ONE.shiftLeft(64);

    /** What the encoder knows of one table (the Python encoder's {@code _Table}). */
    private static final class Table {
        final List<ColumnEntry> shape; // the columns its schema was derived from; null: none known
        final String[] schemaText; // before and after the version
        final boolean hasColumns;
        final long tableId; // the schema's (its first row's, 0 for a DDL's new table)
        final BigInteger version;
        Long sentMs; // when its schema was last sent (a BOOTSTRAP or a DDL); null: never
        long rowsSince;

        Table(List<ColumnEntry> shape, String[] schemaText, boolean hasColumns, long tableId, BigInteger version,
              Long sentMs) {
            this.shape = shape;
            this.schemaText = schemaText;
            this.hasColumns = hasColumns;
            this.tableId = tableId;
            this.version = version;
            this.sentMs = sentMs;
        }

        String wire() {
            return schemaText[0] + version + schemaText[1];
        }
    }

    private final SimpleWriting cfg;
    private final RecordChecks checks;
    private final Map<List<String>, Table> tables = new HashMap<>();
    private final ArrayDeque<Message> closed = new ArrayDeque<>(); // made, not yet polled
    private boolean resends;

    public SimpleBatchEncoder(String configText) {
        cfg = new SimpleWriting(configText);
        checks = new RecordChecks(cfg.checks);
    }

    @Override
    public void start(String topic, int partition) {
        tables.clear();
        closed.clear();
        resends = cfg.resends && (cfg.toAllPartitions || partition == 0);
    }

    @Override
    public boolean watermark(BigDecimal commitTs, long now) {
        if (commitTs.signum() < 0 || commitTs.scale() > 0 || commitTs.toBigInteger().compareTo(U64_LIMIT) >= 0) {
            return refused();
        }
        byte[] value = fitting("{\"version\":1,\"type\":\"WATERMARK\",\"commitTs\":" + commitTs.toBigInteger()
                + ",\"buildTs\":" + now + "}");
        return value == null ? refused() : given(null, value);
    }

    @Override
    public boolean row(String kind, BigDecimal commitTs, String schema, String table, Long tableId,
                       List<ColumnEntry> columns, List<ColumnEntry> preColumns, Boolean handleKeyOnly, byte half,
                       long now) {
        if (!checks.plainRow(kind, commitTs, schema, table, columns, preColumns, handleKeyOnly)) {
            return refused(); // checked as the event came (both images of a split update)
        }
        if (half == 1) {
            kind = "delete";
            columns = null;
        } else if (half == 2) {
            kind = "insert";
            preColumns = null;
        }
        BigInteger ts = commitTs.toBigInteger();
        List<ColumnEntry> image = image(columns, preColumns);
        if (image == null) {
            return refused();
        }
        List<String> key = Arrays.asList(schema, table);
        Table known = tables.get(key);
        if (known != null && known.shape == null && known.hasColumns) {
            return refused(); // a schema no row gave (the Python encoder's know()): not in Java's tables
        }
        // the state after this row, changed only once its messages are sure (else Python takes the row)
        Table after = known;
        boolean bootstrap;
        if (known != null && known.shape != null && sameShape(known.shape, image)) {
            long rowsSince = known.rowsSince + 1;
            bootstrap = resends && (rowsSince >= cfg.bootstrapMsgCount || known.sentMs == null
                    || now - known.sentMs >= cfg.bootstrapIntervalMs);
        } else {
            BigInteger version = known == null ? ts : ts.max(known.version.add(BigInteger.ONE));
            long id = tableId == null ? 0 : tableId;
            String[] text = SimpleSchemaText.of(cfg, schema, table, id, image);
            if (text == null) {
                return refused();
            }
            after = new Table(image, text, true, id, version, null);
            bootstrap = true;
        }
        byte[] boot = null;
        if (bootstrap) {
            boot = fitting("{\"version\":1,\"type\":\"BOOTSTRAP\",\"commitTs\":0,\"buildTs\":" + now
                    + ",\"tableSchema\":" + after.wire() + "}");
            if (boot == null) {
                return refused();
            }
        }
        String text = rowText(kind, ts, schema, table, tableId, after.version, columns, preColumns, now);
        byte[] message = text == null ? null : fitting(text);
        if (message == null) {
            return refused();
        }
        if (after != known) {
            tables.put(key, after);
        }
        if (boot != null) {
            closed.add(new Message(null, boot, 0));
            after.sentMs = now;
            after.rowsSince = 0;
        } else {
            after.rowsSince++;
        }
        return given(null, message);
    }

    /** {@code row_columns}: the image's columns, then those only the old image has; null where a
     * column is absent or two share a name (the Python encoder's dict would keep one). */
    private static List<ColumnEntry> image(List<ColumnEntry> columns, List<ColumnEntry> preColumns) {
        List<ColumnEntry> out = new ArrayList<>(columns != null ? columns : preColumns);
        Set<String> names = new HashSet<>();
        for (ColumnEntry c : out) {
            if (c == null || c.name == null || !names.add(c.name)) {
                return null;
            }
        }
        if (columns != null && preColumns != null) {
            Set<String> old = new HashSet<>();
            for (ColumnEntry c : preColumns) {
                if (c == null || c.name == null || !old.add(c.name)) {
                    return null;
                }
                if (!names.contains(c.name)) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    /** The Python encoder's shape: each column's name, type, flags and type text, in order. */
    private static boolean sameShape(List<ColumnEntry> a, List<ColumnEntry> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            ColumnEntry x = a.get(i);
            ColumnEntry y = b.get(i);
            if (!x.name.equals(y.name) || !java.util.Objects.equals(x.type, y.type)
                    || !java.util.Objects.equals(x.flags, y.flags) || !java.util.Objects.equals(x.mysqlType, y.mysqlType)) {
                return false;
            }
        }
        return true;
    }

    /** A row's message ({@code _row_message}), or null where this port is not sure of a value. */
    private String rowText(String kind, BigInteger ts, String schema, String table, Long tableId, BigInteger version,
                           List<ColumnEntry> columns, List<ColumnEntry> preColumns, long now) {
        StringBuilder out = new StringBuilder(256).append("{\"version\":1,\"database\":");
        if (!JsonText.append(out, schema)) {
            return null;
        }
        out.append(",\"table\":");
        if (!JsonText.append(out, table)) {
            return null;
        }
        if (tableId != null && tableId != 0) {
            out.append(",\"tableID\":").append(tableId);
        }
        out.append(",\"type\":\"").append(kind.toUpperCase(java.util.Locale.ROOT)).append("\",\"commitTs\":").append(ts)
                .append(",\"buildTs\":").append(now);
        if (version.signum() != 0) {
            out.append(",\"schemaVersion\":").append(version);
        }
        if (columns != null && !values(out.append(",\"data\":"), columns)) {
            return null;
        }
        if (preColumns != null && !values(out.append(",\"old\":"), preColumns)) {
            return null;
        }
        return out.append('}').toString();
    }

    /** An image's values by column name, in the names' order ({@code _values}). */
    private boolean values(StringBuilder out, List<ColumnEntry> image) {
        List<ColumnEntry> sorted = new ArrayList<>(image);
        sorted.sort((a, b) -> codePointOrder(a.name, b.name));
        out.append('{');
        for (int i = 0; i < sorted.size(); i++) {
            ColumnEntry c = sorted.get(i);
            if (i > 0) {
                out.append(',');
            }
            if (!JsonText.append(out, c.name)) {
                return false;
            }
            out.append(':');
            if (!value(out, c)) {
                return false;
            }
        }
        out.append('}');
        return true;
    }

    /** Python's order of str: by code point (Java's compareTo is by UTF-16 unit). */
    private static int codePointOrder(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    /** One value as {@code json_values.writer_of} writes it; false where this port is not sure. */
    private boolean value(StringBuilder out, ColumnEntry c) {
        if (c.fieldsSet == 0) {
            out.append("null");
            return true;
        }
        SimpleWriting.TypeWriting w = c.type == null ? null : cfg.types.get(c.type);
        if (w == null || c.flags == null) {
            return false;
        }
        int rule = w.rules[(c.flags & cfg.binary) != 0 ? 1 : 0];
        switch (rule) {
            case SimpleWriting.INT: {
                BigInteger n = c.number();
                if (n == null) {
                    return false;
                }
                out.append('"').append(n).append('"');
                return true;
            }
            case SimpleWriting.FLOAT32:
            case SimpleWriting.DOUBLE: {
                if (c.doubleValue == null || c.doubleValue.isNaN() || c.doubleValue.isInfinite()) {
                    return false;
                }
                double v = c.doubleValue;
                out.append('"').append(rule == SimpleWriting.FLOAT32 ? FloatText.float32(v) : FloatText.float64(v)).append('"');
                return true;
            }
            case SimpleWriting.BASE64: {
                byte[] raw = c.binaryValue != null ? c.binaryValue
                        : c.stringValue != null ? c.stringValue.getBytes(StandardCharsets.UTF_8) : null;
                if (raw == null) {
                    return false;
                }
                out.append('"').append(Base64.getEncoder().encodeToString(raw)).append('"');
                return true;
            }
            case SimpleWriting.TEXT:
                return c.stringValue != null && JsonText.append(out, c.stringValue);
            case SimpleWriting.TIMESTAMP:
                if (c.stringValue == null) {
                    return false;
                }
                out.append("{\"location\":");
                JsonText.append(out, cfg.timeZone);
                out.append(",\"value\":");
                if (!JsonText.append(out, c.stringValue)) {
                    return false;
                }
                out.append('}');
                return true;
            default:
                return false;
        }
    }

    /** A message's bytes as {@code JsonFormat.dumps} gives them (Go's HTML-safe escapes), or null
     * where they do not fit max-message-bytes (Python's large-message handling or error). */
    private byte[] fitting(String text) {
        byte[] value = goEscaped(text).getBytes(StandardCharsets.UTF_8);
        return value.length + (long) cfg.overhead > cfg.maxMessageBytes ? null : value;
    }

    /** A message of one event, given as it is made. */
    private boolean given(byte[] key, byte[] value) {
        closed.add(new Message(key, value, 1));
        return true;
    }

    /** {@code <}, {@code >}, {@code &}, U+2028 and U+2029 escaped, as Go's json.Marshal (they occur only in strings). */
    private static String goEscaped(String text) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            String escape = ch == '<' ? "\\u003c" : ch == '>' ? "\\u003e" : ch == '&' ? "\\u0026"
                    : ch == '\u2028' ? "\\u2028" : ch == '\u2029' ? "\\u2029" : null;
            if (escape != null && out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (out != null) {
                if (escape != null) {
                    out.append(escape);
                } else {
                    out.append(ch);
                }
            }
        }
        return out == null ? text : out.toString();
    }

    /** Java leaves the rest of the partition to Python, with its state as before this event
     * ({@link #handOver}); the messages it gave stay. */
    private boolean refused() {
        return false;
    }

    /**
     * The tables' state for the Python encoder ({@code SimpleEncoder.adopt_handed_state}), a JSON
     * array of one object per table: its database and table, table id and schema version, the shape
     * its schema was derived from ({@code [name, type, flags, mysqlType]} per column; null: none
     * known, a DDL's table no row has given), when its schema was last sent (ms, the clock the
     * messages carry; null: never) and its rows since.
     */
    @Override
    public String handOver() {
        StringBuilder out = new StringBuilder(256).append('[');
        for (Map.Entry<List<String>, Table> e : tables.entrySet()) {
            Table t = e.getValue();
            if (out.length() > 1) {
                out.append(',');
            }
            out.append("{\"schema\":");
            JsonText.append(out, e.getKey().get(0));
            out.append(",\"table\":");
            JsonText.append(out, e.getKey().get(1));
            out.append(",\"table_id\":").append(t.tableId).append(",\"version\":").append(t.version)
                    .append(",\"sent_ms\":").append(t.sentMs).append(",\"rows_since\":").append(t.rowsSince)
                    .append(",\"shape\":");
            if (t.shape == null) {
                out.append("null");
            } else {
                out.append('[');
                for (int i = 0; i < t.shape.size(); i++) {
                    ColumnEntry c = t.shape.get(i);
                    out.append(i == 0 ? "[" : ",[");
                    JsonText.append(out, c.name);
                    out.append(',');
                    JsonText.append(out, c.type);
                    out.append(',').append(c.flags).append(',');
                    if (c.mysqlType == null) {
                        out.append("null");
                    } else {
                        JsonText.append(out, c.mysqlType);
                    }
                    out.append(']');
                }
                out.append(']');
            }
            out.append('}');
        }
        return out.append(']').toString();
    }

    @Override
    public boolean leave(String kind) {
        return refused(); // an event of no kind Java knows: the partition is Python's
    }

    @Override
    public boolean encodesDdl() {
        return true; // a DDL changes the tables' state, which Java keeps for the partition
    }


    /**
     * A DDL's message ({@code _ddl}, for an event that carries no table schema, as none does in a
     * Spark row) and its change to the table's state: a created or unknown table has no columns until
     * its first row (which then gets a new version and a BOOTSTRAP); a known one keeps its columns
     * under the DDL's commit ts, with the schema before it as {@code preTableSchema}.
     */
    @Override
    public boolean ddl(BigDecimal commitTs, String schema, String table, String ddlType, String query, long now) {
        String kind = ddlType == null || !isAscii(ddlType) ? null : cfg.ddlKinds.get(ddlType.toUpperCase(java.util.Locale.ROOT));
        if (kind == null || query == null || schema == null || table == null || schema.indexOf('\0') >= 0
                || table.indexOf('\0') >= 0 || commitTs.signum() < 0 || commitTs.toBigInteger().compareTo(U64_LIMIT) >= 0) {
            return refused(); // the record checks' or Python's own error
        }
        BigInteger ts = commitTs.toBigInteger();
        StringBuilder out = new StringBuilder(256).append("{\"version\":1,\"type\":\"").append(kind).append('"');
        if (!query.isEmpty() && !JsonText.append(out.append(",\"sql\":"), query)) {
            return refused();
        }
        out.append(",\"commitTs\":").append(ts).append(",\"buildTs\":").append(now);
        if (schema.isEmpty() && table.isEmpty()) {
            byte[] value = fitting(out.append('}').toString());
            return value == null ? refused() : given(null, value);
        }
        List<String> key = Arrays.asList(schema, table);
        Table before = tables.get(key);
        Table after;
        if (before == null || kind.equals("CREATE")) { // a created table's columns: unknown until its first row
            String[] text = SimpleSchemaText.of(cfg, schema, table, 0, List.of());
            if (text == null) {
                return refused();
            }
            after = new Table(null, text, false, 0, ts, null);
        } else {
            after = new Table(before.hasColumns ? before.shape : null, before.schemaText, before.hasColumns,
                    before.tableId, ts, before.hasColumns ? now : null);
        }
        out.append(",\"tableSchema\":").append(after.wire());
        if (before != null && !kind.equals("CREATE")) {
            out.append(",\"preTableSchema\":").append(before.wire());
        }
        byte[] value = fitting(out.append('}').toString());
        if (value == null) {
            return refused();
        }
        if (!table.isEmpty()) {
            tables.put(key, after);
        }
        return given(null, value);
    }

    private static boolean isAscii(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) > 0x7F) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean resumes(String kind) {
        return false; // the Python encoder has the partition's state from here on
    }

    @Override
    public void finish() {
        // every message was given as it was made
    }

    @Override
    public Message poll() {
        return closed.poll();
    }
}
