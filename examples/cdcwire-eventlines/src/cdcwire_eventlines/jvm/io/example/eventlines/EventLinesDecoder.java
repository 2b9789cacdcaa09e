package io.example.eventlines;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.CheckTables;
import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.ConfigText;
import io.cdcwire.spark.MessageDecoder;
import io.cdcwire.spark.RecordChecks;
import io.cdcwire.spark.SureJson;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * eventlines messages (one event in canonical event JSON) read in the JVM, for the ones it is
 * sure of: resolved events, and row events whose every column is an integer type holding a
 * 64-bit signed integer, a string type holding a text, or null, and which pass the record
 * checks. Every other message (a DDL, a float, bytes, a table id, anything not exactly
 * well-formed) is null: the plugin's Python decoder ({@code cdcwire_eventlines.codec}) reads it
 * in its place and words what is wrong. Only the framework's public classes are used.
 */
public final class EventLinesDecoder implements MessageDecoder {
    private static final UTF8String INSERT = UTF8String.fromString("insert");
    private static final UTF8String UPDATE = UTF8String.fromString("update");
    private static final UTF8String DELETE = UTF8String.fromString("delete");
    private static final UTF8String RESOLVED = UTF8String.fromString("resolved");
    private static final Set<String> ROW_KEYS = Set.of("type", "commit_ts", "schema", "table", "columns", "pre_columns");
    private static final Set<String> COLUMN_KEYS = Set.of("name", "type", "flags", "value", "mysql_type");

    private final RecordChecks checks;
    /** The type names whose integer / text values are read here, and the known flag bits:
     * from the Python glue ({@code cdcwire_eventlines.codec.decoder_config}), never written twice. */
    private final Set<String> integerTypes;
    private final Set<String> stringTypes;
    private final long knownFlags;
    private final int binaryFlag;

    /** Made in each task by the core's {@code MessageDecoding} with the configuration text. */
    public EventLinesDecoder(String configText) {
        JsonNode root = ConfigText.root(configText);
        checks = new RecordChecks(new CheckTables(root));
        integerTypes = names(root.get("integer_types"));
        stringTypes = names(root.get("string_types"));
        knownFlags = root.get("known_flags").asLong();
        binaryFlag = root.get("binary_flag").asInt();
    }

    private static Set<String> names(JsonNode list) {
        Set<String> out = new HashSet<>();
        list.forEach(n -> out.add(n.asText()));
        return out;
    }

    @Override
    public Object[] read(byte[] value) {
        JsonNode doc = SureJson.object(value);
        if (doc == null) {
            return null;
        }
        JsonNode type = doc.get("type");
        if (type == null || !type.isTextual()) {
            return null;
        }
        if (type.textValue().equals("resolved")) {
            Long ts = timestamp(doc.get("ts"));
            if (ts == null || doc.size() != 2) {
                return null;
            }
            Object[] out = new Object[EVENT_FIELDS];
            out[KIND] = RESOLVED;
            out[COMMIT_TS] = Decimal.apply(BigDecimal.valueOf(ts), 20, 0);
            out[KEY_ONLY] = false;
            return out;
        }
        return type.textValue().equals("row") ? row(doc) : null;
    }

    private static Long timestamp(JsonNode ts) {
        return ts != null && ts.isIntegralNumber() && ts.canConvertToLong() && ts.longValue() >= 0 ? ts.longValue() : null;
    }

    private Object[] row(JsonNode doc) {
        for (Iterator<String> it = doc.fieldNames(); it.hasNext(); ) {
            if (!ROW_KEYS.contains(it.next())) {
                return null; // a table id, handle_key_only, or a key Python refuses
            }
        }
        Long ts = timestamp(doc.get("commit_ts"));
        JsonNode schema = doc.get("schema");
        JsonNode table = doc.get("table");
        if (ts == null || schema == null || !schema.isTextual() || table == null || !table.isTextual()) {
            return null;
        }
        List<ColumnEntry> news = doc.path("columns").isNull() || doc.get("columns") == null ? null : new ArrayList<>();
        List<ColumnEntry> olds = doc.path("pre_columns").isNull() || doc.get("pre_columns") == null ? null : new ArrayList<>();
        Object[] newRow = news == null ? null : image(doc.get("columns"), news);
        Object[] oldRow = olds == null ? null : image(doc.get("pre_columns"), olds);
        if (news != null && newRow == null || olds != null && oldRow == null) {
            return null;
        }
        String kind = news != null && olds != null ? "update" : news != null ? "insert" : "delete";
        BigDecimal commit = BigDecimal.valueOf(ts);
        if (!checks.plainRow(kind, commit, schema.textValue(), table.textValue(), news, olds, false)) {
            return null;
        }
        Object[] out = new Object[EVENT_FIELDS];
        out[KIND] = kind.equals("insert") ? INSERT : kind.equals("update") ? UPDATE : DELETE;
        out[COMMIT_TS] = Decimal.apply(commit, 20, 0);
        out[SCHEMA] = UTF8String.fromString(schema.textValue());
        out[TABLE] = UTF8String.fromString(table.textValue());
        out[COLUMNS] = newRow == null ? null : new GenericArrayData(newRow);
        out[PRE_COLUMNS] = oldRow == null ? null : new GenericArrayData(oldRow);
        out[KEY_ONLY] = false;
        return out;
    }

    /** An image's column structs, its entries added for the record checks; null where a column
     * is not one of the kinds read here. */
    private Object[] image(JsonNode columns, List<ColumnEntry> entries) {
        if (!columns.isArray()) {
            return null;
        }
        Object[] out = new Object[columns.size()];
        for (int i = 0; i < out.length; i++) {
            JsonNode c = columns.get(i);
            if (!c.isObject()) {
                return null;
            }
            for (Iterator<String> it = c.fieldNames(); it.hasNext(); ) {
                if (!COLUMN_KEYS.contains(it.next())) {
                    return null;
                }
            }
            JsonNode name = c.get("name");
            JsonNode type = c.get("type");
            JsonNode flagsNode = c.get("flags");
            JsonNode value = c.get("value");
            JsonNode mysql = c.get("mysql_type");
            if (name == null || !name.isTextual() || type == null || !type.isTextual()
                    || flagsNode == null || !flagsNode.isIntegralNumber() || !flagsNode.canConvertToInt()
                    || mysql != null && !mysql.isNull() && !mysql.isTextual()) {
                return null;
            }
            int flags = flagsNode.intValue();
            String typeName = type.textValue();
            if (flags < 0 || (flags & ~knownFlags) != 0 || (flags & binaryFlag) != 0) {
                return null;
            }
            Long integer = null;
            String text = null;
            if (value == null || value.isNull()) {
                if (!integerTypes.contains(typeName) && !stringTypes.contains(typeName)) {
                    return null;
                }
            } else if (integerTypes.contains(typeName) && value.isIntegralNumber() && value.canConvertToLong()) {
                integer = value.longValue();
            } else if (stringTypes.contains(typeName) && value.isTextual()) {
                text = value.textValue();
            } else {
                return null; // floats, decimals, times, bytes...: the Python decoder reads them
            }
            String mysqlType = mysql == null || mysql.isNull() ? null : mysql.textValue();
            entries.add(ColumnEntry.decoded(name.textValue(), typeName, flags, integer, null, null, text, null, mysqlType));
            out[i] = ColumnEntry.sparkColumn(UTF8String.fromString(name.textValue()), UTF8String.fromString(typeName),
                    flags, integer, null, null, text, null, mysqlType == null ? null : UTF8String.fromString(mysqlType));
        }
        return out;
    }
}
