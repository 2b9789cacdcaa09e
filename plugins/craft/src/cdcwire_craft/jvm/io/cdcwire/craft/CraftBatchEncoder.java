package io.cdcwire.craft;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.BatchEncoder;
import io.cdcwire.spark.CheckTables;
import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.ConfigText;
import io.cdcwire.spark.RecordChecks;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * craft's {@link BatchEncoder}: the same batching as {@code cdcwire_craft.encoder.CraftEncoder._stream}
 * (after a row is added, the message closes while the reference's estimate passes
 * {@code max-message-bytes} or it holds {@code max-batch-size} rows; a closing message takes the
 * longest prefix of the pending rows that really fits, the rest stays pending; DDL and resolved
 * events close everything pending) and the same bytes as {@code message_writer.rows_message}
 * (columnar headers, bodies of column groups, the term dictionary, the size tables). A row Java
 * is not sure of (the record checks, a value, a row whose message would not fit alone) is
 * refused: it and the pending rows go to Python.
 */
public final class CraftBatchEncoder implements BatchEncoder {
    private static final String[] KINDS = {"SIGNED", "UNSIGNED", "FLOAT", "DOUBLE", "TEXT", "STRING", "BINARY",
        "ALWAYS_NULL"};
    private static final int SIGNED = 0, UNSIGNED = 1, FLOAT = 2, DOUBLE = 3, ALWAYS_NULL = 7;
    private static final double F32_MAX = 3.4028234663852886e38;
    private static final BigDecimal U64_MAX = new BigDecimal(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE));

    /** A column type's code and value kind for each combination of the flags it depends on. */
    private static final class TypeWriting {
        final int code;
        final int[] kinds = new int[4];

        TypeWriting(JsonNode node) {
            code = node.get("code").asInt();
            for (int i = 0; i < 4; i++) {
                JsonNode k = node.get("kinds").get(i);
                kinds[i] = k == null || k.isNull() ? -1 : ConfigText.named(k, java.util.Arrays.asList(KINDS), "value kind");
            }
        }
    }

    /** One column group as written: kind byte, names, types, flags and the values chunk. */
    private static final class Group {
        final int kindByte;
        final String[] names;
        final int[] types;
        final int[] flags;
        final byte[] values;
        final String signature;

        Group(int kindByte, String[] names, int[] types, int[] flags, byte[] values) {
            this.kindByte = kindByte;
            this.names = names;
            this.types = types;
            this.flags = flags;
            this.values = values;
            StringBuilder s = new StringBuilder().append(kindByte);
            for (int i = 0; i < names.length; i++) {
                s.append('\0').append(names[i]).append('\0').append(types[i]).append('\0').append(flags[i]);
            }
            signature = s.toString();
        }
    }

    /** A row with its values encoded and the reference's estimate ({@code PreparedRow}). */
    private static final class Row {
        final long ts;
        final long partition;
        final String schema;
        final String table;
        final List<Group> groups;
        final long estimate;
        final String layoutKey;

        Row(long ts, long partition, String schema, String table, List<Group> groups, long estimate) {
            this.ts = ts;
            this.partition = partition;
            this.schema = schema;
            this.table = table;
            this.groups = groups;
            this.estimate = estimate;
            StringBuilder k = new StringBuilder(schema).append('\1').append(table);
            for (Group g : groups) {
                k.append('\1').append(g.signature);
            }
            layoutKey = k.toString();
        }
    }

    private final Map<String, TypeWriting> types;
    private final int binaryFlag, unsignedFlag, maxBatchSize, overhead, headerEstimate, columnEstimate;
    private final int version, eventRow, eventResolved, eventDdl, groupNew, groupOld;
    /** Each DDLType name's code ({@code int(DDLType[name])}): a DDL's body holds it. */
    private final Map<String, Integer> ddlTypes = new HashMap<>();
    private final long maxMessageBytes;
    private final boolean deleteOnlyHandleKey;
    private final RecordChecks checks;
    private final ArrayDeque<Message> closed = new ArrayDeque<>();
    private final List<Row> pending = new ArrayList<>();
    private long estimate;

    public CraftBatchEncoder(String configText) {
        JsonNode root = ConfigText.root(configText);
        checks = new RecordChecks(new CheckTables(root));
        types = ConfigText.table(root.get("types"), TypeWriting::new);
        List<String> kinds = new ArrayList<>();
        root.get("kinds").forEach(k -> kinds.add(k.asText()));
        if (!kinds.equals(java.util.Arrays.asList(KINDS))) {
            throw new IllegalArgumentException("craft's value kinds changed: " + kinds);
        }
        binaryFlag = root.get("kind_flags").get(0).asInt();
        unsignedFlag = root.get("kind_flags").get(1).asInt();
        maxBatchSize = root.get("max_batch_size").asInt();
        maxMessageBytes = root.get("max_message_bytes").asLong();
        deleteOnlyHandleKey = root.get("delete_only_handle_key").asBoolean();
        overhead = root.get("overhead").asInt();
        headerEstimate = root.get("header_estimate").asInt();
        columnEstimate = root.get("column_estimate").asInt();
        version = root.get("version").asInt();
        eventRow = root.get("event_row").asInt();
        eventResolved = root.get("event_resolved").asInt();
        eventDdl = root.get("event_ddl").asInt();
        root.get("ddl_types").fields().forEachRemaining(e -> ddlTypes.put(e.getKey(), e.getValue().asInt()));
        groupNew = root.get("group_new").asInt();
        groupOld = root.get("group_old").asInt();
    }

    @Override
    public void start(String topic, int partition) {
        pending.clear();
        estimate = 0;
    }

    @Override
    public boolean watermark(BigDecimal commitTs, long now) {
        if (commitTs.signum() < 0 || commitTs.compareTo(U64_MAX) > 0) {
            return false;
        }
        byte[] value = resolvedMessage(commitTs.toBigInteger().longValue());
        if (!fits(value)) {
            return false;
        }
        closeAll();
        closed.add(new Message(null, value, 1));
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
        if (kind.equals("delete") && deleteOnlyHandleKey) {
            return false; // the Event path cuts the image: Python's
        }
        Row row = prepare(commitTs.toBigInteger().longValue(), tableId == null ? -1 : tableId, schema, table,
                columns, preColumns);
        if (row == null || !fits(message(List.of(row)))) {
            return false; // a value Java is not sure of, or too large alone: Python's bytes or error
        }
        pending.add(row);
        estimate += row.estimate;
        while (!pending.isEmpty() && (estimate > maxMessageBytes || pending.size() >= maxBatchSize)) {
            closeOne();
            estimate = 0;
            for (Row r : pending) {
                estimate += r.estimate;
            }
        }
        return true;
    }

    @Override
    public boolean leave(String kind) {
        if (!"ddl".equals(kind)) {
            return false;
        }
        closeAll();
        return true;
    }

    @Override
    public boolean encodesDdl() {
        return true; // a DDL closes every open batch and is a message alone, as resolved is
    }

    /**
     * {@code ddl_message}, closing the open batch first ({@code CraftEncoder._stream}). Why Java
     * makes it: a DDL left to Python split the task's Java-staged run in two, so every partition
     * a DDL reached had its later records staged as a piece for the Python stage to copy, and its
     * DDL row crossed to a Python worker. Anything unusual stays Python's, bytes or error: a type
     * not named exactly as a DDLType (the columnar path looks it up by its exact name), a null
     * name or query, a NUL or a lone surrogate in a text, a ts outside u64, a message too large.
     */
    @Override
    public boolean ddl(BigDecimal commitTs, String schema, String table, String ddlType, String query, long now) {
        Integer type = ddlType == null ? null : ddlTypes.get(ddlType);
        if (type == null || schema == null || table == null || query == null || schema.indexOf('\0') >= 0
                || table.indexOf('\0') >= 0 || commitTs.signum() < 0 || commitTs.compareTo(U64_MAX) > 0) {
            return false;
        }
        byte[] q = strictUtf8(query);
        if (q == null || strictUtf8(schema) == null || strictUtf8(table) == null) {
            return false;
        }
        byte[] value = ddlMessage(commitTs.toBigInteger().longValue(), schema, table, type, q);
        if (!fits(value)) {
            return false;
        }
        closeAll();
        closed.add(new Message(null, value, 1));
        return true;
    }

    @Override
    public boolean resumes(String kind) {
        return "ddl".equals(kind) || "resolved".equals(kind);
    }

    @Override
    public void finish() {
        closeAll();
    }

    @Override
    public Message poll() {
        return closed.poll();
    }

    private boolean fits(byte[] value) {
        return (long) value.length + overhead <= maxMessageBytes;
    }

    private void closeAll() {
        while (!pending.isEmpty()) {
            closeOne();
        }
        estimate = 0;
    }

    /** One message of the longest prefix of the pending rows that fits (a single row always does). */
    private void closeOne() {
        int end = pending.size();
        byte[] value = message(pending.subList(0, end));
        while (!fits(value) && end > 1) {
            end--;
            value = message(pending.subList(0, end));
        }
        closed.add(new Message(null, value, end));
        pending.subList(0, end).clear();
    }

    // -- one row ---------------------------------------------------------------------------

    private Row prepare(long ts, long partition, String schema, String table, List<ColumnEntry> news,
                        List<ColumnEntry> olds) {
        List<Group> groups = new ArrayList<>(2);
        byte[] schema8 = strictUtf8(schema);
        byte[] table8 = strictUtf8(table);
        if (schema8 == null || table8 == null) {
            return null; // Python's encode refuses a lone surrogate
        }
        long est = headerEstimate + schema8.length + table8.length;
        for (int g = 0; g < 2; g++) {
            List<ColumnEntry> image = g == 0 ? news : olds;
            if (image == null || image.isEmpty()) {
                continue;
            }
            int n = image.size();
            String[] names = new String[n];
            int[] codes = new int[n];
            int[] flags = new int[n];
            byte[][] data = new byte[n][];
            for (int i = 0; i < n; i++) {
                ColumnEntry c = image.get(i);
                TypeWriting w = types.get(c.type);
                if (w == null || c.flags == null) {
                    return null;
                }
                int f = c.flags;
                int kind = w.kinds[((f & binaryFlag) != 0 ? 1 : 0) + ((f & unsignedFlag) != 0 ? 2 : 0)];
                if (kind < 0) {
                    return null;
                }
                names[i] = c.name;
                byte[] name8 = strictUtf8(c.name);
                if (name8 == null) {
                    return null;
                }
                codes[i] = w.code;
                flags[i] = f;
                if (c.fieldsSet == 0 || kind == ALWAYS_NULL) {
                    data[i] = null; // NULL and GEOMETRY columns carry no value
                } else {
                    data[i] = value(kind, c);
                    if (data[i] == null || c.fieldsSet > 1) {
                        return null;
                    }
                }
                est += name8.length + columnEstimate + (data[i] == null ? 0 : data[i].length);
            }
            ByteArrayOutputStream chunk = new ByteArrayOutputStream();
            for (byte[] d : data) {
                CraftBytes.varint(chunk, d == null ? -1 : d.length);
            }
            for (byte[] d : data) {
                if (d != null) {
                    chunk.write(d, 0, d.length);
                }
            }
            groups.add(new Group(g == 0 ? groupNew : groupOld, names, codes, flags, chunk.toByteArray()));
        }
        return new Row(ts, partition, schema, table, groups, est);
    }

    /** A non-null value's bytes by its kind ({@code column_values.ENCODERS}), or null: Python's. */
    private static byte[] value(int kind, ColumnEntry c) {
        switch (kind) {
            case SIGNED:
                return c.intValue == null ? null : CraftBytes.uvarint(CraftBytes.zigzag(c.intValue));
            case UNSIGNED:
                if (c.intValue != null) {
                    return c.intValue < 0 ? null : CraftBytes.uvarint(c.intValue);
                }
                if (c.uintValue != null && c.uintValue.signum() >= 0 && c.uintValue.compareTo(U64_MAX) <= 0) {
                    return CraftBytes.uvarint(c.uintValue.toBigIntegerExact().longValue());
                }
                return null;
            case FLOAT:
            case DOUBLE: {
                Double d = c.doubleValue;
                if (d == null || Double.isNaN(d) || (kind == FLOAT && Math.abs(d) > F32_MAX)) {
                    return null;
                }
                long bits = Double.doubleToRawLongBits(d);
                byte[] out = new byte[8];
                for (int i = 0; i < 8; i++) {
                    out[i] = (byte) (bits >>> (8 * i));
                }
                return out;
            }
            default: // TEXT, STRING, BINARY: the text's UTF-8 or the bytes as they are
                if (c.binaryValue != null) {
                    return c.binaryValue;
                }
                return c.stringValue == null ? null : strictUtf8(c.stringValue);
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** UTF-8 of a text, null for a lone surrogate (Python's encode refuses it). */
    private static byte[] strictUtf8(String text) {
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (Character.isHighSurrogate(ch) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(ch)) {
                return null;
            }
        }
        return utf8(text);
    }

    // -- messages --------------------------------------------------------------------------

    /** {@code rows_message}: version | headers | bodies | dictionary | size tables | trailer. */
    private byte[] message(List<Row> rows) {
        int n = rows.size();
        Map<String, Row> keys = new LinkedHashMap<>();
        for (Row r : rows) {
            keys.putIfAbsent(r.layoutKey, r);
        }
        Map<String, Integer> ids = new LinkedHashMap<>();
        for (Row r : keys.values()) {
            term(ids, r.schema);
        }
        for (Row r : keys.values()) {
            term(ids, r.table);
        }
        Map<String, byte[][]> prefixes = new HashMap<>();
        for (Map.Entry<String, Row> e : keys.entrySet()) {
            List<Group> groups = e.getValue().groups;
            byte[][] made = new byte[groups.size()][];
            for (int g = 0; g < groups.size(); g++) {
                Group group = groups.get(g);
                ByteArrayOutputStream p = new ByteArrayOutputStream();
                p.write(group.kindByte);
                CraftBytes.uvarint(p, group.names.length);
                long[] nameIds = new long[group.names.length];
                for (int i = 0; i < nameIds.length; i++) {
                    nameIds[i] = ids.computeIfAbsent(group.names[i], k -> ids.size());
                }
                CraftBytes.deltaVarints(p, nameIds);
                for (int t : group.types) {
                    CraftBytes.uvarint(p, t);
                }
                for (int f : group.flags) {
                    CraftBytes.uvarint(p, f & 0xFFFFFFFFL);
                }
                made[g] = p.toByteArray();
            }
            prefixes.put(e.getKey(), made);
        }
        ByteArrayOutputStream headers = new ByteArrayOutputStream();
        long[] column = new long[n];
        for (int i = 0; i < n; i++) {
            column[i] = rows.get(i).ts;
        }
        CraftBytes.deltaUvarints(headers, column);
        for (int i = 0; i < n; i++) {
            CraftBytes.uvarint(headers, eventRow);
        }
        for (int i = 0; i < n; i++) {
            column[i] = rows.get(i).partition;
        }
        CraftBytes.deltaVarints(headers, column);
        for (int i = 0; i < n; i++) {
            column[i] = idOf(ids, rows.get(i).schema);
        }
        CraftBytes.deltaVarints(headers, column);
        for (int i = 0; i < n; i++) {
            column[i] = idOf(ids, rows.get(i).table);
        }
        CraftBytes.deltaVarints(headers, column);
        ByteArrayOutputStream dictionary = dictionary(ids);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CraftBytes.uvarint(out, version);
        byte[] h = headers.toByteArray();
        out.write(h, 0, h.length);
        List<Long> numbers = new ArrayList<>();
        List<Long> groupTables = new ArrayList<>();
        numbers.add(2L);
        numbers.add(CraftBytes.zigzag(h.length));
        numbers.add(CraftBytes.zigzag((long) dictionary.size() - h.length));
        numbers.add((long) n);
        long lastBody = 0;
        for (Row r : rows) {
            byte[][] prefix = prefixes.get(r.layoutKey);
            long[] sizes = new long[r.groups.size()];
            for (int g = 0; g < sizes.length; g++) {
                byte[] values = r.groups.get(g).values;
                out.write(prefix[g], 0, prefix[g].length);
                out.write(values, 0, values.length);
                sizes[g] = prefix[g].length + values.length;
            }
            long body = 0;
            groupTables.add((long) sizes.length);
            long last = 0;
            for (long s : sizes) {
                groupTables.add(CraftBytes.zigzag(s - last));
                last = s;
                body += s;
            }
            numbers.add(CraftBytes.zigzag(body - lastBody));
            lastBody = body;
        }
        numbers.addAll(groupTables);
        byte[] d = dictionary.toByteArray();
        out.write(d, 0, d.length);
        ByteArrayOutputStream tables = new ByteArrayOutputStream();
        for (long x : numbers) {
            CraftBytes.uvarint(tables, x);
        }
        byte[] t = tables.toByteArray();
        out.write(t, 0, t.length);
        CraftBytes.reversedUvarint(out, t.length);
        return out.toByteArray();
    }

    /** {@code _dictionary}: uvarint(count) + string chunk of the terms; no terms take no bytes. */
    private static ByteArrayOutputStream dictionary(Map<String, Integer> ids) {
        ByteArrayOutputStream dictionary = new ByteArrayOutputStream();
        if (!ids.isEmpty()) {
            CraftBytes.uvarint(dictionary, ids.size());
            List<byte[]> terms = new ArrayList<>();
            for (String t : ids.keySet()) {
                terms.add(utf8(t));
            }
            for (byte[] t : terms) {
                CraftBytes.uvarint(dictionary, t.length);
            }
            for (byte[] t : terms) {
                dictionary.write(t, 0, t.length);
            }
        }
        return dictionary;
    }

    private static void term(Map<String, Integer> ids, String text) {
        if (!text.isEmpty()) {
            ids.putIfAbsent(text, ids.size());
        }
    }

    private static long idOf(Map<String, Integer> ids, String text) {
        Integer id = ids.get(text);
        return id == null ? -1 : id;
    }

    /** {@code ddl_message}: partition -1, the schema and table as terms, body = uvarint(type),
     * uvarint(len(query)), query. */
    private byte[] ddlMessage(long ts, String schema, String table, int type, byte[] query) {
        Map<String, Integer> ids = new LinkedHashMap<>();
        term(ids, schema);
        term(ids, table);
        ByteArrayOutputStream headers = new ByteArrayOutputStream();
        CraftBytes.uvarint(headers, ts);
        CraftBytes.uvarint(headers, eventDdl);
        CraftBytes.varint(headers, -1);
        CraftBytes.varint(headers, idOf(ids, schema));
        CraftBytes.varint(headers, idOf(ids, table));
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        CraftBytes.uvarint(body, type);
        CraftBytes.uvarint(body, query.length);
        body.write(query, 0, query.length);
        ByteArrayOutputStream dictionary = dictionary(ids);
        int h = headers.size();
        ByteArrayOutputStream tables = new ByteArrayOutputStream();
        CraftBytes.uvarint(tables, 2);
        CraftBytes.uvarint(tables, CraftBytes.zigzag(h));
        CraftBytes.uvarint(tables, CraftBytes.zigzag((long) dictionary.size() - h));
        CraftBytes.uvarint(tables, 1);
        CraftBytes.uvarint(tables, CraftBytes.zigzag(body.size()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CraftBytes.uvarint(out, version);
        for (ByteArrayOutputStream part : List.of(headers, body, dictionary, tables)) {
            byte[] b = part.toByteArray();
            out.write(b, 0, b.length);
        }
        CraftBytes.reversedUvarint(out, tables.size());
        return out.toByteArray();
    }

    /** {@code resolved_message}: no partition, schema or table (all -1), an empty body. */
    private byte[] resolvedMessage(long ts) {
        ByteArrayOutputStream headers = new ByteArrayOutputStream();
        CraftBytes.uvarint(headers, ts);
        CraftBytes.uvarint(headers, eventResolved);
        for (int i = 0; i < 3; i++) {
            CraftBytes.varint(headers, -1);
        }
        int h = headers.size();
        ByteArrayOutputStream tables = new ByteArrayOutputStream();
        CraftBytes.uvarint(tables, 2);
        CraftBytes.uvarint(tables, CraftBytes.zigzag(h));
        CraftBytes.uvarint(tables, CraftBytes.zigzag(-h));
        CraftBytes.uvarint(tables, 1);
        CraftBytes.uvarint(tables, 0);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CraftBytes.uvarint(out, version);
        byte[] hb = headers.toByteArray();
        out.write(hb, 0, hb.length);
        byte[] t = tables.toByteArray();
        out.write(t, 0, t.length);
        CraftBytes.reversedUvarint(out, t.length);
        return out.toByteArray();
    }
}
