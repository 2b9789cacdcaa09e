package io.cdcwire.spark;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;

/**
 * One COLUMN struct of the event row ({@code cdcwire.spark.rows.schema}): name, type (a
 * ColumnType name, any case), flags, the VALUE struct's fields (at most one set) and the type
 * text. {@code fieldsSet} counts the VALUE fields set, which the checks need.
 */
final class ColumnEntry {
    // cdcwire.type_codes.ColumnFlag
    static final int BINARY = 0x01;
    static final int PRIMARY_KEY = 0x08;
    static final int UNSIGNED = 0x80;

    final String name;
    final String typeName; // as given
    final String type; // upper case, null when absent
    final Integer flags;
    final Long intValue;
    final BigDecimal uintValue;
    final Double doubleValue;
    final String stringValue;
    final byte[] binaryValue;
    final String mysqlType;
    final int fieldsSet;

    private ColumnEntry(Row c) {
        name = c.isNullAt(0) ? null : c.getString(0);
        typeName = c.isNullAt(1) ? null : c.getString(1);
        type = typeName == null ? null : typeName.toUpperCase(java.util.Locale.ROOT);
        flags = c.isNullAt(2) ? null : c.getInt(2);
        Row v = c.isNullAt(3) ? null : c.getStruct(3);
        if (v == null) {
            intValue = null;
            uintValue = null;
            doubleValue = null;
            stringValue = null;
            binaryValue = null;
        } else {
            intValue = v.isNullAt(0) ? null : v.getLong(0);
            uintValue = v.isNullAt(1) ? null : v.getDecimal(1);
            doubleValue = v.isNullAt(2) ? null : v.getDouble(2);
            stringValue = v.isNullAt(3) ? null : v.getString(3);
            binaryValue = v.isNullAt(4) ? null : (byte[]) v.get(4);
        }
        mysqlType = c.isNullAt(4) ? null : c.getString(4);
        int set = 0;
        for (Object o : new Object[] {intValue, uintValue, doubleValue, stringValue, binaryValue}) {
            if (o != null) {
                set++;
            }
        }
        fieldsSet = set;
    }

    /** The entries of an image, null for a null image; an entry that is itself null stays null. */
    static List<ColumnEntry> image(Row event, int field) {
        if (event.isNullAt(field)) {
            return null;
        }
        List<Row> rows = event.getList(field);
        List<ColumnEntry> out = new ArrayList<>(rows.size());
        for (Row r : rows) {
            out.add(r == null ? null : new ColumnEntry(r));
        }
        return out;
    }

    boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** The integer value (int or uint field), or null. */
    BigInteger number() {
        if (intValue != null) {
            return BigInteger.valueOf(intValue);
        }
        return uintValue == null ? null : uintValue.toBigInteger();
    }

    /** The key of this column's shape in canal-json's column table ({@code java_canal_json.column_key}). */
    String key() {
        boolean zerofill = mysqlType != null && mysqlType.toLowerCase(java.util.Locale.ROOT).contains("zerofill");
        return type + ":" + (has(BINARY) ? 1 : 0) + (has(UNSIGNED) ? 1 : 0) + (zerofill ? 1 : 0);
    }

    /** Name, type, flags and type text: what makes two images of one shape. */
    boolean sameShape(ColumnEntry o) {
        return java.util.Objects.equals(name, o.name) && java.util.Objects.equals(typeName, o.typeName)
                && java.util.Objects.equals(flags, o.flags) && java.util.Objects.equals(mysqlType, o.mysqlType);
    }
}
