package io.cdcwire.simple;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.MessageDecoder;
import io.cdcwire.spark.RecordChecks;
import io.cdcwire.spark.SureJson;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * simple's JSON messages read into event rows, for the ones it is sure of: watermarks, and
 * rows (INSERT, UPDATE, DELETE) of a table schema it learnt from a BOOTSTRAP of the same
 * partition, whose values read and pass the record checks. {@link #read} gives null for
 * every other message (BOOTSTRAP and DDL messages too: the Python decoder learns from them,
 * in their place), which the Python decoder ({@code cdcwire_simple.decoder}) then reads and
 * words what is wrong with it.
 *
 * <p>The core makes one decoder per partition and feeds it the partition's messages in order;
 * the Python decoder, one per partition too, sees the pending ones. So that Java never types a
 * row the Python decoder would hold (its schema not come) or type otherwise, Java's schemas are
 * always fewer: it learns only from a BOOTSTRAP it reads whole as Python does; a DDL makes it
 * forget the schemas of the tables it names, and any message it cannot read (so cannot tell
 * whether it changes the Python decoder's schemas) makes it forget all. Forgetting only sends
 * rows to Python.
 *
 * <p>JSON is read only where orjson surely reads it alike ({@link SureJson}: strict UTF-8, no key
 * twice, no integer past 64 bits, no float past the double range, no lone surrogate).
 */
public final class SimpleDecoder implements MessageDecoder {
    /** Schemas kept at most; past it all are forgotten (the Python decoder keeps far more). */
    private static final int KEPT = 1024;
    private static final Pattern INTEGER = Pattern.compile("-?[0-9]{1,20}");
    private static final Pattern NUMBER = Pattern.compile("-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?");
    private static final Pattern BASE64 =
            Pattern.compile("(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?");
    private static final BigInteger U64 = BigInteger.ONE.shiftLeft(64);
    private static final UTF8String INSERT = UTF8String.fromString("insert");
    private static final UTF8String UPDATE = UTF8String.fromString("update");
    private static final UTF8String DELETE = UTF8String.fromString("delete");
    private static final UTF8String RESOLVED = UTF8String.fromString("resolved");

    /** A value read: at most one of the event row's value fields set. */
    private static final class Value {
        Long integer;
        BigDecimal unsigned;
        Double number;
        String text;
        byte[] bytes;
    }

    private final SimpleConfig config;
    private final RecordChecks checks;
    /** The schemas learnt, by {@code schema \0 table \0 version}. */
    private final Map<String, SimpleTable> tables = new LinkedHashMap<>();

    /** Made in each task by the core's {@code MessageDecoding} with the configuration text. */
    public SimpleDecoder(String configText) {
        config = new SimpleConfig(configText);
        checks = new RecordChecks(config.checks);
    }

    private static String keyOf(String schema, String table, long version) {
        return schema + '\0' + table + '\0' + version;
    }

    @Override
    public Object[] read(byte[] value) {
        JsonNode obj = SureJson.object(value);
        if (obj == null) {
            tables.clear(); // not read here: it might be a schema the Python decoder learns
            return null;
        }
        JsonNode type = obj.get("type");
        String kind = type != null && type.isTextual() ? type.textValue() : null;
        boolean rowType = "INSERT".equals(kind) || "UPDATE".equals(kind) || "DELETE".equals(kind);
        if (obj.has("data") || obj.has("old") || rowType || obj.has("claimCheckLocation")) {
            return rowType && !obj.has("claimCheckLocation") ? row(obj, kind) : null; // no schema changes
        }
        if ("WATERMARK".equals(kind)) {
            Long ts = commitTs(obj);
            return ts == null ? null : resolved(ts);
        }
        if ("BOOTSTRAP".equals(kind)) {
            learn(obj);
        } else if (type == null || kind != null) {
            forget(obj); // a DDL (or an unknown type, which the Python decoder refuses)
        } // a type not a string: refused in Python, before any schema
        return null;
    }

    /** A BOOTSTRAP's schema, kept where it reads whole; else every schema forgotten. */
    private void learn(JsonNode obj) {
        SimpleTable t = commitTs(obj) == null ? null : SimpleTable.of(obj.get("tableSchema"), config);
        if (t == null) {
            tables.clear();
            return;
        }
        if (t.table.isEmpty()) {
            return; // the Python decoder keeps no schema of no table
        }
        String key = keyOf(t.schema, t.table, t.version);
        if (!t.readable()) {
            tables.remove(key); // no columns (Python may keep an older one), or one not read here
            return;
        }
        if (tables.size() >= KEPT) {
            tables.clear();
        }
        tables.put(key, t);
    }

    /** A DDL: the schemas of the tables its schemas name, forgotten (all where it names none). */
    private void forget(JsonNode obj) {
        boolean named = false;
        for (String field : new String[] {"tableSchema", "preTableSchema"}) {
            JsonNode s = obj.get(field);
            if (s == null || s.isNull()) {
                continue;
            }
            String schema = s.isObject() ? SimpleTable.schemaName(s) : null;
            JsonNode table = s.isObject() ? s.get("table") : null;
            if (schema == null || table == null || !table.isTextual()) {
                tables.clear();
                return;
            }
            String prefix = schema + '\0' + table.textValue() + '\0';
            tables.keySet().removeIf(k -> k.startsWith(prefix));
            named = true;
        }
        if (!named) {
            tables.clear();
        }
    }

    private static Long commitTs(JsonNode obj) {
        JsonNode ts = obj.get("commitTs");
        return ts != null && ts.isIntegralNumber() && ts.canConvertToLong() && ts.longValue() >= 0 ? ts.longValue() : null;
    }

    private static Object[] resolved(long ts) {
        Object[] out = new Object[EVENT_FIELDS];
        out[KIND] = RESOLVED;
        out[COMMIT_TS] = Decimal.apply(BigDecimal.valueOf(ts), 20, 0);
        out[KEY_ONLY] = false;
        return out;
    }

    private Object[] row(JsonNode obj, String kind) {
        JsonNode db = obj.get("database");
        JsonNode table = obj.get("table");
        JsonNode version = obj.get("schemaVersion");
        JsonNode tableId = obj.get("tableID");
        Long ts = commitTs(obj);
        if (db == null || !db.isTextual() || table == null || !table.isTextual() || ts == null
                || version != null && !(version.isIntegralNumber() && version.canConvertToLong() && version.longValue() >= 0)
                || tableId != null && !tableId.isNull() && !(tableId.isIntegralNumber() && tableId.canConvertToLong()
                        && tableId.longValue() >= 0)) {
            return null;
        }
        SimpleTable t = tables.get(keyOf(db.textValue(), table.textValue(), version == null ? 0 : version.longValue()));
        if (t == null) {
            return null; // its schema not learnt here: the Python decoder types or holds it
        }
        JsonNode data = obj.get("data");
        JsonNode old = obj.get("old");
        List<ColumnEntry> news = null;
        List<ColumnEntry> olds = null;
        Object[] newRow = null;
        Object[] oldRow = null;
        if (!kind.equals("DELETE")) {
            news = new ArrayList<>(t.columns.length);
            newRow = image(data, null, t, news);
            if (newRow == null) {
                return null;
            }
        }
        if (!kind.equals("INSERT")) {
            olds = new ArrayList<>(t.columns.length);
            oldRow = image(old, kind.equals("UPDATE") ? data : null, t, olds);
            if (oldRow == null) {
                return null;
            }
        }
        String lower = kind.equals("INSERT") ? "insert" : kind.equals("UPDATE") ? "update" : "delete";
        JsonNode keyOnly = obj.get("handleKeyOnly");
        BigDecimal commit = BigDecimal.valueOf(ts);
        if (!checks.plainRow(lower, commit, db.textValue(), table.textValue(), news, olds,
                keyOnly != null && keyOnly.isBoolean() && keyOnly.booleanValue())) {
            return null;
        }
        Object[] out = new Object[EVENT_FIELDS];
        out[KIND] = kind.equals("INSERT") ? INSERT : kind.equals("UPDATE") ? UPDATE : DELETE;
        out[COMMIT_TS] = Decimal.apply(commit, 20, 0);
        out[SCHEMA] = UTF8String.fromString(db.textValue());
        out[TABLE] = UTF8String.fromString(table.textValue());
        out[TABLE_ID] = tableId == null || tableId.isNull() || tableId.longValue() == 0 ? null : tableId.longValue();
        out[COLUMNS] = newRow == null ? null : new GenericArrayData(newRow);
        out[PRE_COLUMNS] = oldRow == null ? null : new GenericArrayData(oldRow);
        out[KEY_ONLY] = false;
        return out;
    }

    /** An image's column structs in the schema's order ({@code _image}: an UPDATE's old takes a
     * column it lacks from data), its entries added for the record checks; null where it does
     * not read here. */
    private static Object[] image(JsonNode values, JsonNode fill, SimpleTable t, List<ColumnEntry> entries) {
        if (values == null || !values.isObject()) {
            return null;
        }
        int known = 0;
        List<Object> out = new ArrayList<>(t.columns.length);
        for (SimpleTable.Column c : t.columns) {
            JsonNode raw = values.get(c.name);
            if (raw != null) {
                known++;
            } else if (fill != null && fill.isObject()) {
                raw = fill.get(c.name);
            }
            if (raw == null) {
                continue; // a virtual generated column, or one a column selector left out
            }
            Value v = raw.isNull() ? new Value() : value(c.reading.rule, raw);
            if (v == null) {
                return null;
            }
            entries.add(ColumnEntry.decoded(c.name, c.reading.type, c.flags, v.integer, v.unsigned, v.number, v.text,
                    v.bytes, c.mysqlType));
            out.add(ColumnEntry.sparkColumn(c.name8, c.type8, c.flags,
                    v.integer, v.unsigned, v.number, v.text, v.bytes, c.mysqlType8));
        }
        if (known != values.size() || out.isEmpty()) {
            return null; // a column its schema has not (or two of one name), or none at all
        }
        return out.toArray();
    }

    /** A non-null JSON value read as {@code json_values.reader_of}'s rule reads it, or null. */
    private static Value value(int rule, JsonNode raw) {
        Value v = new Value();
        switch (rule) {
            case SimpleConfig.INT: {
                if (!raw.isTextual() || !INTEGER.matcher(raw.textValue()).matches()) {
                    return null;
                }
                BigInteger n = new BigInteger(raw.textValue());
                if (n.bitLength() <= 63) {
                    v.integer = n.longValue();
                } else if (n.signum() > 0 && n.compareTo(U64) < 0) {
                    v.unsigned = new BigDecimal(n);
                } else {
                    return null;
                }
                return v;
            }
            case SimpleConfig.FLOAT32: {
                Double d = number(raw);
                if (d == null) {
                    return null;
                }
                float f = (float) (double) d;
                if (Float.isInfinite(f) && !Double.isInfinite(d)) {
                    return null; // past the FLOAT range: refused in Python
                }
                v.number = (double) f;
                return v;
            }
            case SimpleConfig.DOUBLE:
                v.number = number(raw);
                return v.number == null ? null : v;
            case SimpleConfig.BASE64:
                if (!raw.isTextual() || !BASE64.matcher(raw.textValue()).matches()) {
                    return null;
                }
                v.bytes = Base64.getDecoder().decode(raw.textValue());
                return v;
            case SimpleConfig.TEXT:
                if (!raw.isTextual()) {
                    return null;
                }
                v.text = raw.textValue();
                return v;
            case SimpleConfig.TIMESTAMP: {
                JsonNode text = raw.isObject() ? raw.get("value") : null;
                if (text == null || !text.isTextual()) {
                    return null;
                }
                v.text = text.textValue();
                return v;
            }
            default:
                return null;
        }
    }

    /** {@code float(raw)} of a plain decimal text (Python's float takes more forms: those are
     * left to it); both round to the nearest double. */
    private static Double number(JsonNode raw) {
        if (!raw.isTextual() || !NUMBER.matcher(raw.textValue()).matches()) {
            return null;
        }
        return Double.parseDouble(raw.textValue());
    }

}
