package io.cdcwire.debezium;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.JsonBytes;
import io.cdcwire.spark.MessageDecoder;
import io.cdcwire.spark.RecordChecks;
import io.cdcwire.spark.SureJson;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One debezium message (key and value) read into the event row, for the messages it is sure
 * of: rows ({@code op} c, u, d) whose Connect schema's {@code after} fields it reads
 * ({@link DebeziumField}), whose key names columns of that schema and whose values read and
 * pass the record checks; and watermarks ({@code op} m). {@link #read} gives null for every
 * other message: DDL (no {@code op}), and anything malformed or unusual. The Python decoder
 * ({@code cdcwire_debezium.decoder}) then reads it in its place and words what is wrong with
 * it: Java never refuses a message itself, so the error a reader sees is the Python decoder's.
 *
 * <p>Each part is read only where it is sure to be read as orjson reads it: strict UTF-8
 * starting with an object ({@link JsonBytes}), no key twice in an object, nothing after it, no
 * integer past 64 bits, no float past the double range, no lone surrogate, nested at most
 * {@link SureJson#DEPTH} deep ({@link SureJson}).
 *
 * <p>The value's Connect schema is most of its bytes and the same for every row of a table: it
 * is read into a tree once per distinct text ({@link #RECENT} kept), then skipped over (its
 * bytes compared) in each message that repeats it; only the payload becomes a tree.
 */
public final class DebeziumDecoder implements MessageDecoder {
    private static final int RECENT = 16;
    private static final BigDecimal U64_LIMIT = new BigDecimal(java.math.BigInteger.ONE.shiftLeft(64));
    private static final UTF8String INSERT = UTF8String.fromString("insert");
    private static final UTF8String UPDATE = UTF8String.fromString("update");
    private static final UTF8String DELETE = UTF8String.fromString("delete");
    private static final UTF8String RESOLVED = UTF8String.fromString("resolved");

    /** The columns of one {@code after} schema, read once for the rows of its table. */
    private static final class Fields {
        final String[] names;
        final UTF8String[] names8; // as the event row holds them, made once
        final DebeziumField[] fields;

        Fields(String[] names, DebeziumField[] fields) {
            this.names = names;
            this.fields = fields;
            names8 = new UTF8String[names.length];
            for (int i = 0; i < names.length; i++) {
                names8[i] = UTF8String.fromString(names[i]);
            }
        }
    }

    /** A value schema's text and its after columns (null: no row of it reads here). */
    private static final class Schema {
        final byte[] text;
        final Fields fields;

        Schema(byte[] text, Fields fields) {
            this.text = text;
            this.fields = fields;
        }
    }

    /** The parts of a value read: its payload (a tree) and its schema. */
    private static final class ValueParts {
        JsonNode payload;
        Schema schema;
    }

    private static final Schema NOT_PLAIN = new Schema(new byte[0], null);

    private final DebeziumConfig config;
    private final RecordChecks checks;
    private final ArrayDeque<Schema> recent = new ArrayDeque<>();

    /** Made in each task by the core's {@code MessageDecoding} with the configuration text. */
    public DebeziumDecoder(String configText) {
        config = new DebeziumConfig(configText);
        checks = new RecordChecks(config.checks);
    }

    @Override
    public Object[] read(byte[] key, byte[] value) {
        ValueParts doc = parts(value);
        if (doc == null) {
            return null;
        }
        JsonNode payload = doc.payload;
        JsonNode source = payload == null ? null : payload.get("source");
        if (source == null || !payload.isObject() || !source.isObject()) {
            return null;
        }
        JsonNode commitTs = source.get("commit_ts");
        if (commitTs == null || !commitTs.isIntegralNumber() || !commitTs.canConvertToLong() || commitTs.longValue() < 0) {
            return null;
        }
        JsonNode db = source.get("db");
        JsonNode table = source.get("table");
        JsonNode op = payload.get("op");
        if (db == null || table == null || !db.isTextual() || !table.isTextual() || op == null || !op.isTextual()) {
            return null; // no op: a DDL, the Python decoder's
        }
        BigDecimal ts = BigDecimal.valueOf(commitTs.longValue());
        switch (op.textValue()) {
            case "m":
                return resolved(ts);
            case "c":
            case "u":
            case "d":
                return row(key, doc, payload, op.textValue(), ts, db.textValue(), table.textValue());
            default:
                return null;
        }
    }

    private Object[] row(byte[] keyBytes, ValueParts value, JsonNode payload, String op, BigDecimal ts, String db,
                         String table) {
        Fields fields = value.schema == null ? null : value.schema.fields;
        JsonNode key = SureJson.object(keyBytes);
        JsonNode keyPayload = key == null ? null : key.get("payload");
        if (fields == null || keyPayload == null || !keyPayload.isObject()) {
            return null;
        }
        Set<String> keys = new HashSet<>();
        for (Iterator<String> it = keyPayload.fieldNames(); it.hasNext(); ) {
            keys.add(it.next());
        }
        for (String name : keys) {
            if (!contains(fields.names, name)) {
                return null;
            }
        }
        JsonNode before = payload.get("before");
        before = before == null || before.isNull() ? null : before;
        JsonNode after = payload.get("after");
        UTF8String kind;
        List<ColumnEntry> news = null;
        List<ColumnEntry> olds = null;
        Object[] newRow = null;
        Object[] oldRow = null;
        if (op.equals("c") || op.equals("u") && before == null) {
            kind = INSERT;
        } else if (op.equals("d")) {
            kind = DELETE;
        } else {
            kind = UPDATE;
        }
        if (kind != DELETE) {
            news = new ArrayList<>(fields.names.length);
            newRow = image(after, fields, keys, news);
            if (newRow == null) {
                return null;
            }
        }
        if (kind != INSERT) {
            olds = new ArrayList<>(fields.names.length);
            oldRow = image(before, fields, keys, olds);
            if (oldRow == null) {
                return null;
            }
        }
        if (!checks.plainRow(kind.toString(), ts, db, table, news, olds, false)) {
            return null;
        }
        Object[] out = new Object[EVENT_FIELDS];
        out[KIND] = kind;
        out[COMMIT_TS] = Decimal.apply(ts, 20, 0);
        out[SCHEMA] = UTF8String.fromString(db);
        out[TABLE] = UTF8String.fromString(table);
        out[COLUMNS] = newRow == null ? null : new GenericArrayData(newRow);
        out[PRE_COLUMNS] = oldRow == null ? null : new GenericArrayData(oldRow);
        out[KEY_ONLY] = false;
        return out;
    }

    private static boolean contains(String[] names, String name) {
        for (String n : names) {
            if (n.equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static Object[] resolved(BigDecimal ts) {
        Object[] out = new Object[EVENT_FIELDS];
        out[KIND] = RESOLVED;
        out[COMMIT_TS] = Decimal.apply(ts, 20, 0);
        out[KEY_ONLY] = false;
        return out;
    }

    /** The value schema's {@code after} columns (the second field, named after), read; null
     * where the Python decoder refuses them or this port is not sure of one. */
    private Fields fields(JsonNode schema) {
        JsonNode all = schema == null ? null : schema.get("fields");
        JsonNode after = all != null && all.isArray() && all.size() > 1 ? all.get(1) : null;
        JsonNode field = after == null ? null : after.get("field");
        JsonNode columns = after == null ? null : after.get("fields");
        if (field == null || !"after".equals(field.textValue()) || columns == null || !columns.isArray()) {
            return null;
        }
        int n = columns.size();
        String[] names = new String[n];
        DebeziumField[] read = new DebeziumField[n];
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < n; i++) {
            JsonNode c = columns.get(i);
            JsonNode name = c.isObject() ? c.get("field") : null;
            if (name == null || !name.isTextual() || !seen.add(name.textValue())) {
                return null;
            }
            names[i] = name.textValue();
            read[i] = DebeziumField.of(c, config);
            if (read[i] == null) {
                return null;
            }
        }
        return new Fields(names, read);
    }

    /** A value's payload and schema, read as orjson reads the value, or null where it would
     * not (or might read it otherwise): the schema skipped where its text is a recent one. */
    private ValueParts parts(byte[] bytes) {
        if (bytes == null || !JsonBytes.plainStart(bytes) || !JsonBytes.strictUtf8(bytes)) {
            return null;
        }
        boolean surrogates = JsonBytes.maySurrogate(bytes);
        ValueParts out = new ValueParts();
        try (JsonParser p = SureJson.PARTS.createParser(bytes)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                if (surrogates && !JsonBytes.plainText(name)) {
                    return null;
                }
                if (name.equals("schema") && v == JsonToken.START_OBJECT) {
                    int start = (int) p.currentTokenLocation().getByteOffset();
                    Schema last = lastPart(bytes, start);
                    if (last != null) {
                        out.schema = last;
                        return out; // a recent schema's text, then only the document's end
                    }
                    p.skipChildren(); // still checks each key once per object
                    int end = (int) p.currentTokenLocation().getByteOffset() + 1;
                    out.schema = schema(bytes, start, end, surrogates);
                    if (out.schema == NOT_PLAIN) {
                        return null;
                    }
                } else {
                    JsonNode node = SureJson.PARTS.readTree(p);
                    if (node == null || !SureJson.plain(node, 1, surrogates, false)) {
                        return null;
                    }
                    if (name.equals("payload")) {
                        out.payload = node;
                    } else if (name.equals("schema")) {
                        out.schema = null;
                    }
                }
            }
            if (p.nextToken() != null) {
                return null;
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return out;
    }

    /** The recent schema whose text starts at {@code start} and is followed only by the
     * document's end (as TiCDC writes a value: its payload, then its schema), or null. */
    private Schema lastPart(byte[] bytes, int start) {
        for (Schema known : recent) {
            int end = start + known.text.length;
            if (end <= bytes.length && Arrays.equals(known.text, 0, known.text.length, bytes, start, end)
                    && onlyEnd(bytes, end)) {
                return known;
            }
        }
        return null;
    }

    /** From {@code at}: JSON whitespace, one closing brace, JSON whitespace. */
    private static boolean onlyEnd(byte[] bytes, int at) {
        int braces = 0;
        for (int i = at; i < bytes.length; i++) {
            byte b = bytes[i];
            if (b == '}') {
                braces++;
            } else if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                return false;
            }
        }
        return braces == 1;
    }

    /** The schema of these bytes: a recent one of the same text, else read now. */
    private Schema schema(byte[] bytes, int start, int end, boolean surrogates) throws IOException {
        for (Schema known : recent) {
            if (Arrays.equals(known.text, 0, known.text.length, bytes, start, end)) {
                return known;
            }
        }
        JsonNode tree = SureJson.WHOLE.readTree(bytes, start, end - start);
        if (tree == null || !SureJson.plain(tree, 1, surrogates, false)) {
            return NOT_PLAIN;
        }
        Schema made = new Schema(Arrays.copyOfRange(bytes, start, end), fields(tree));
        if (recent.size() >= RECENT) {
            recent.removeLast();
        }
        recent.addFirst(made);
        return made;
    }

    /** An image's column structs (in the schema's order), its entries added to {@code entries}
     * for the record checks; null where it does not read. */
    private static Object[] image(JsonNode image, Fields fields, Set<String> keys, List<ColumnEntry> entries) {
        if (image == null || !image.isObject() || image.size() != fields.names.length) {
            return null;
        }
        Object[] out = new Object[fields.names.length];
        for (int i = 0; i < out.length; i++) {
            String name = fields.names[i];
            DebeziumField f = fields.fields[i];
            JsonNode raw = image.get(name);
            if (raw == null) {
                return null;
            }
            DebeziumField.Value v = raw.isNull() ? new DebeziumField.Value() : f.value(raw);
            if (v == null) {
                return null;
            }
            int flags = keys.contains(name) ? f.keyFlags : f.flags;
            entries.add(ColumnEntry.decoded(name, f.reading.type, flags, v.integer, v.unsigned, v.number, v.text,
                    v.bytes, f.mysqlType));
            out[i] = ColumnEntry.sparkColumn(fields.names8[i], f.typeText, flags,
                    v.integer, v.unsigned, v.number, v.text, v.bytes, f.mysqlType8);
        }
        return out;
    }

}
