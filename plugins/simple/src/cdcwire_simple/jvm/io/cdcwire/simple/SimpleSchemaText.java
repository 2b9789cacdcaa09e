package io.cdcwire.simple;

import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.JsonText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code tableSchema} a BOOTSTRAP carries for a table known only by a row's columns, as the
 * Python encoder writes it ({@code table_schema.table_schema_of}: the core's
 * {@code derive_table_schema}, then {@code wire_schema}): each column's TiDB type name, charset and
 * collation for its type and binary flag, length and decimal from its type text (or TiDB's default),
 * ENUM/SET elements, unsigned, zerofill, nullable, no default; one index, the handle key, named
 * {@code primary} when its columns are all the primary key.
 *
 * <p>The type texts here passed the record checks, whose forms are narrower than the core's reading
 * ({@code parse_type_text}): a name, one or two numbers in parentheses, or quoted elements without
 * quotes or backslashes inside, then attribute words. Where a text is not of those forms this gives
 * null (not sure), and the partition is Python's.
 */
final class SimpleSchemaText {
    private static final Pattern NUMBERS_FORM =
            Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)(?:\\(([0-9]{1,10})(?:,([0-9]{1,10}))?\\))?((?: [A-Za-z0-9_]+)*)");
    private static final Pattern ELEMENTS_FORM =
            Pattern.compile("([A-Za-z]+)\\(('[^'\\\\]*'(?:,'[^'\\\\]*')*)\\)((?: [A-Za-z0-9_]+)*)");
    private static final Pattern ELEMENT = Pattern.compile("'([^'\\\\]*)'");

    private SimpleSchemaText() {}

    /**
     * The schema's text up to its version ({@code {"schema":..,"table":..,"tableID":..,"version":})
     * and after it ({@code ,"columns":[..],"indexes":[..]}}), or null where this port is not sure.
     */
    static String[] of(SimpleWriting cfg, String schema, String table, long tableId, List<ColumnEntry> image) {
        StringBuilder head = new StringBuilder("{\"schema\":");
        if (!JsonText.append(head, schema)) {
            return null;
        }
        head.append(",\"table\":");
        if (!JsonText.append(head, table)) {
            return null;
        }
        head.append(",\"tableID\":").append(tableId).append(",\"version\":");
        StringBuilder tail = new StringBuilder(",\"columns\":[");
        List<String> keys = new ArrayList<>();
        boolean primary = true;
        boolean keyNullable = false;
        for (int i = 0; i < image.size(); i++) {
            ColumnEntry c = image.get(i);
            if (i > 0) {
                tail.append(',');
            }
            if (!column(cfg, c, tail)) {
                return null;
            }
            if ((c.flags & cfg.handleKey) != 0) {
                keys.add(c.name);
                primary &= (c.flags & cfg.primaryKey) != 0;
                keyNullable |= (c.flags & cfg.nullable) != 0;
            }
        }
        tail.append("],\"indexes\":[");
        if (!keys.isEmpty()) {
            tail.append("{\"name\":\"").append(primary ? "primary" : "handle_key").append("\",\"unique\":true,\"primary\":")
                    .append(primary).append(",\"nullable\":").append(keyNullable).append(",\"columns\":[");
            for (int i = 0; i < keys.size(); i++) {
                if (i > 0) {
                    tail.append(',');
                }
                JsonText.append(tail, keys.get(i));
            }
            tail.append("]}");
        }
        tail.append("]}");
        return new String[] {head.toString(), tail.toString()};
    }

    /** One {@code columnSchema} object ({@code column_schema}, then {@code ColumnSchema.wire}). */
    private static boolean column(SimpleWriting cfg, ColumnEntry c, StringBuilder out) {
        SimpleWriting.TypeWriting w = c.type == null ? null : cfg.types.get(c.type);
        if (w == null || c.flags == null || c.name == null) {
            return false;
        }
        int b = (c.flags & cfg.binary) != 0 ? 1 : 0;
        if (w.names[b] == null) {
            return false;
        }
        boolean unsigned = (c.flags & cfg.unsigned) != 0;
        Long number = null;
        Long scale = null;
        List<String> elements = null;
        boolean zerofill = false;
        if (c.mysqlType != null && !c.mysqlType.isEmpty()) {
            Matcher m = NUMBERS_FORM.matcher(c.mysqlType);
            if (m.matches()) {
                number = m.group(2) == null ? null : Long.valueOf(m.group(2));
                scale = m.group(3) == null ? null : Long.valueOf(m.group(3));
            } else {
                Matcher e = ELEMENTS_FORM.matcher(c.mysqlType);
                if (!e.matches()) {
                    return false;
                }
                elements = new ArrayList<>();
                for (Matcher el = ELEMENT.matcher(e.group(2)); el.find(); ) {
                    elements.add(el.group(1));
                }
            }
            zerofill = c.mysqlType.toLowerCase(Locale.ROOT).contains("zerofill");
        } else if (c.mysqlType != null) {
            return false; // an empty text: not of the record checks' forms
        }
        long length;
        long decimal = 0;
        if (w.timeBase != null) {
            long fsp = number == null ? 0 : number;
            length = w.timeBase + (fsp != 0 ? fsp + 1 : 0);
            decimal = fsp;
        } else if (w.decimal) {
            length = number == null ? 0 : number;
            decimal = number == null || scale == null ? 0 : scale;
        } else if (number != null && w.takesNumber) {
            length = number;
        } else {
            length = w.defaultLength == null ? 0 : w.defaultLength[unsigned ? 1 : 0];
        }
        out.append("{\"name\":");
        if (!JsonText.append(out, c.name)) {
            return false;
        }
        out.append(",\"dataType\":{\"mysqlType\":\"").append(w.names[b]).append("\",\"charset\":\"")
                .append(w.charsets[b][0]).append("\",\"collate\":\"").append(w.charsets[b][1]).append('"');
        if (length != 0) {
            out.append(",\"length\":").append(length);
        }
        if (decimal != 0) {
            out.append(",\"decimal\":").append(decimal);
        }
        if (w.elements && elements != null && !elements.isEmpty()) {
            out.append(",\"elements\":[");
            for (int i = 0; i < elements.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                if (!JsonText.append(out, elements.get(i))) {
                    return false;
                }
            }
            out.append(']');
        }
        if (unsigned) {
            out.append(",\"unsigned\":true");
        }
        if (zerofill) {
            out.append(",\"zerofill\":true");
        }
        out.append("},\"nullable\":").append((c.flags & cfg.nullable) != 0).append(",\"default\":null}");
        return true;
    }
}
