package io.cdcwire.simple;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A {@code tableSchema} object read as {@code table_schema.table_schema_from_wire} and
 * {@code read_columns} read it: its key (schema, table, version) and each column's name,
 * reading, flags and type text. {@link #of} gives null wherever the Python decoder refuses
 * the object or this port is not sure it reads it alike: the decoder then forgets every schema.
 */
final class SimpleTable {
    /** One column as a reader rebuilds it. */
    static final class Column {
        final String name;
        final UTF8String name8;
        final SimpleConfig.Reading reading; // null: no rule here reads its values
        final UTF8String type8;
        final int flags;
        final String mysqlType;
        final UTF8String mysqlType8;

        Column(String name, SimpleConfig.Reading reading, int flags, String mysqlType) {
            this.name = name;
            this.name8 = UTF8String.fromString(name);
            this.reading = reading;
            this.type8 = reading == null ? null : UTF8String.fromString(reading.type);
            this.flags = flags;
            this.mysqlType = mysqlType;
            this.mysqlType8 = UTF8String.fromString(mysqlType);
        }
    }

    final String schema, table;
    final long version;
    final Column[] columns;

    private SimpleTable(String schema, String table, long version, Column[] columns) {
        this.schema = schema;
        this.table = table;
        this.version = version;
        this.columns = columns;
    }

    /** Whether every column's values read here (none of the NULL type). */
    boolean readable() {
        for (Column c : columns) {
            if (c.reading == null) {
                return false;
            }
        }
        return columns.length > 0;
    }

    /** The schema's name: {@code schema}, or {@code database} where it has no schema key. */
    static String schemaName(JsonNode obj) {
        JsonNode s = obj.has("schema") ? obj.get("schema") : obj.get("database");
        return s != null && s.isTextual() ? s.textValue() : null;
    }

    private static boolean isInt(JsonNode n) {
        return n != null && n.isIntegralNumber() && n.canConvertToLong();
    }

    /** {@code dt.get(name) or 0}: absent, null or an integer in [0, 2^32), else -1 (not sure). */
    private static long number(JsonNode dt, String name) {
        JsonNode n = dt.get(name);
        if (n == null || n.isNull()) {
            return 0;
        }
        return isInt(n) && n.longValue() >= 0 && n.longValue() < 1L << 32 ? n.longValue() : -1;
    }

    static SimpleTable of(JsonNode obj, SimpleConfig config) {
        if (obj == null || !obj.isObject()) {
            return null;
        }
        String schema = schemaName(obj);
        JsonNode table = obj.get("table");
        JsonNode tableId = obj.get("tableID");
        JsonNode version = obj.get("version");
        JsonNode cols = obj.get("columns");
        JsonNode listed = obj.get("indexes");
        if (schema == null || table == null || !table.isTextual() || tableId != null && !isInt(tableId)
                || !isInt(version) || version.longValue() < 0 || cols == null || !cols.isArray()
                || listed != null && !listed.isNull() && !listed.isArray()) {
            return null;
        }
        Map<String, Integer> keyFlags = new HashMap<>();
        List<String> handle = null;
        boolean handlePrimary = false;
        if (listed != null && listed.isArray()) {
            for (JsonNode idx : listed) {
                JsonNode names = idx.isObject() ? idx.get("columns") : null;
                if (names == null || !names.isArray()) {
                    return null;
                }
                List<String> columns = new ArrayList<>();
                for (JsonNode n : names) {
                    if (!n.isTextual()) {
                        return null;
                    }
                    columns.add(n.textValue());
                }
                boolean primary = isTrue(idx.get("primary"));
                boolean unique = isTrue(idx.get("unique"));
                int flag = primary ? config.primaryKey : unique ? config.uniqueKey : config.multipleKey;
                for (String n : columns) {
                    keyFlags.merge(n, flag, (a, b) -> a | b);
                }
                if (primary && !handlePrimary) {
                    handle = columns;
                    handlePrimary = true;
                } else if (unique && handle == null) {
                    handle = columns;
                }
            }
        }
        if (handle != null) {
            for (String n : handle) {
                keyFlags.merge(n, config.handleKey, (a, b) -> a | b);
            }
        }
        Column[] columns = new Column[cols.size()];
        for (int i = 0; i < columns.length; i++) {
            JsonNode col = cols.get(i);
            JsonNode dt = col.isObject() ? col.get("dataType") : null;
            JsonNode name = col.isObject() ? col.get("name") : null;
            if (dt == null || !dt.isObject() || name == null || !name.isTextual()) {
                return null;
            }
            JsonNode mysqlType = dt.get("mysqlType");
            JsonNode charset = dt.get("charset");
            JsonNode elements = dt.get("elements");
            long length = number(dt, "length");
            long decimal = number(dt, "decimal");
            if (mysqlType == null || !mysqlType.isTextual() || charset != null && !charset.isNull() && !charset.isTextual()
                    || length < 0 || decimal < 0) {
                return null;
            }
            List<String> elementList = new ArrayList<>();
            if (elements != null && !elements.isNull()) {
                if (!elements.isArray()) {
                    return null;
                }
                for (JsonNode e : elements) {
                    if (!e.isTextual()) {
                        return null;
                    }
                    elementList.add(e.textValue());
                }
            }
            boolean unsigned = isTrue(dt.get("unsigned"));
            boolean zerofill = isTrue(dt.get("zerofill"));
            boolean binary = charset != null && "binary".equals(charset.textValue());
            String type = mysqlType.textValue();
            // null: a name no type has (refused in Python), the NULL type, or ZEROFILL (whose
            // text this port does not write): the table is then not read here (readable())
            SimpleConfig.Reading reading = zerofill ? null : config.reading(type, unsigned, binary);
            JsonNode nullable = col.get("nullable");
            int flags = keyFlags.getOrDefault(name.textValue(), 0) | (reading == null ? 0 : reading.flags);
            if (!(nullable != null && nullable.isBoolean() && !nullable.booleanValue())) {
                flags |= config.nullable;
            }
            String text = reading == null ? type : typeText(type, reading, length, decimal, elementList, unsigned, zerofill);
            columns[i] = new Column(name.textValue(), reading, flags, text);
        }
        return new SimpleTable(schema, table.textValue(), version.longValue(), columns);
    }

    private static boolean isTrue(JsonNode n) {
        return n != null && n.isBoolean() && n.booleanValue();
    }

    /** {@code _type_text}: the column's MySQL type text as far as its dataType says it. Where
     * Python's own check of the text would fall back to the bare name, the record checks
     * refuse this text, so the row is left to the Python decoder. */
    private static String typeText(String name, SimpleConfig.Reading r, long length, long decimal,
                                   List<String> elements, boolean unsigned, boolean zerofill) {
        if (r.form == SimpleConfig.ELEMENTS) {
            if (elements.isEmpty()) {
                return name;
            }
            StringBuilder out = new StringBuilder(name).append('(');
            for (int i = 0; i < elements.size(); i++) {
                out.append(i == 0 ? "'" : ",'").append(elements.get(i).replace("'", "''")).append('\'');
            }
            return out.append(')').toString();
        }
        String text;
        if (r.form == SimpleConfig.DECIMAL && length != 0) {
            text = "decimal(" + length + "," + decimal + ")";
        } else if (r.form == SimpleConfig.TIME) {
            text = decimal != 0 ? name + "(" + decimal + ")" : name;
        } else if (r.form == SimpleConfig.WIDTH && length != 0) {
            text = name + "(" + length + ")";
        } else {
            text = name;
        }
        if (unsigned && r.suffixes) {
            text += " unsigned";
        }
        if (zerofill && r.suffixes) {
            text += " zerofill";
        }
        return text;
    }
}
