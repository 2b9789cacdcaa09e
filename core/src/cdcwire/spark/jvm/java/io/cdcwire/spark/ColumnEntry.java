package io.cdcwire.spark;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;

/**
 * One COLUMN struct of the event row ({@code cdcwire.spark.rows.schema}): name, type (a
 * ColumnType name, any case), flags, the VALUE struct's fields (at most one set) and the type
 * text. {@code fieldsSet} counts the VALUE fields set, which the checks need.
 *
 * <p>Read from Spark's {@link InternalRow} where it lies ({@link CanalJsonPartitions}): Spark
 * need not convert the nested images into external rows first.
 */
public final class ColumnEntry {
    // cdcwire.values.type_codes.ColumnFlag
    static final int BINARY = 0x01;
    static final int PRIMARY_KEY = 0x08;
    static final int UNSIGNED = 0x80;
    /** The number of fields of COLUMN and of VALUE. */
    static final int COLUMN_FIELDS = 5;
    static final int VALUE_FIELDS = 5;

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

    private ColumnEntry(String name, String typeName, Integer flags, Long intValue, BigDecimal uintValue,
                        Double doubleValue, String stringValue, byte[] binaryValue, String mysqlType) {
        this.name = name;
        this.typeName = typeName;
        this.type = typeName == null ? null : upper(typeName);
        this.flags = flags;
        this.intValue = intValue;
        this.uintValue = uintValue;
        this.doubleValue = doubleValue;
        this.stringValue = stringValue;
        this.binaryValue = binaryValue;
        this.mysqlType = mysqlType;
        int set = 0;
        for (Object o : new Object[] {intValue, uintValue, doubleValue, stringValue, binaryValue}) {
            if (o != null) {
                set++;
            }
        }
        fieldsSet = set;
    }

    /** The type name in upper case (ColumnType names already are: no copy then). */
    private static String upper(String name) {
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (ch >= 'a' && ch <= 'z' || ch > 0x7F) {
                return name.toUpperCase(java.util.Locale.ROOT);
            }
        }
        return name;
    }

    /** A column as the Java decoder read it, for the record checks. */
    public static ColumnEntry decoded(String name, String typeName, int flags, Long intValue, BigDecimal uintValue,
                               Double doubleValue, String stringValue, byte[] binaryValue, String mysqlType) {
        return new ColumnEntry(name, typeName, flags, intValue, uintValue, doubleValue, stringValue, binaryValue,
                mysqlType);
    }

    private static String text(InternalRow r, int i) {
        return r.isNullAt(i) ? null : r.getUTF8String(i).toString();
    }

    private static ColumnEntry of(InternalRow c) {
        InternalRow v = c.isNullAt(3) ? null : c.getStruct(3, VALUE_FIELDS);
        return new ColumnEntry(
                text(c, 0),
                text(c, 1),
                c.isNullAt(2) ? null : c.getInt(2),
                v == null || v.isNullAt(0) ? null : v.getLong(0),
                v == null || v.isNullAt(1) ? null : v.getDecimal(1, 20, 0).toJavaBigDecimal(),
                v == null || v.isNullAt(2) ? null : v.getDouble(2),
                v == null ? null : text(v, 3),
                v == null || v.isNullAt(4) ? null : v.getBinary(4),
                text(c, 4));
    }

    /** The entries of an image (array field {@code field} of an internal event row), null for a null
     * image; an entry that is itself null stays null. */
    static List<ColumnEntry> image(InternalRow event, int field) {
        if (event.isNullAt(field)) {
            return null;
        }
        ArrayData entries = event.getArray(field);
        int n = entries.numElements();
        List<ColumnEntry> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(entries.isNullAt(i) ? null : of(entries.getStruct(i, COLUMN_FIELDS)));
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
