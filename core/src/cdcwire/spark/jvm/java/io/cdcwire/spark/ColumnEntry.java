package io.cdcwire.spark;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One COLUMN struct of the event row ({@code cdcwire.spark.rows.schema}): name, type (a
 * ColumnType name, any case), flags, the VALUE struct's fields (at most one set) and the type
 * text. {@code fieldsSet} counts the VALUE fields set, which the checks need. Public API of
 * the framework: a plugin's encoder reads its images' columns as these, its decoder makes them
 * ({@link #decoded}) for the record checks.
 *
 * <p>Read from Spark's {@link InternalRow} where it lies ({@link MessageEncoding}): Spark
 * need not convert the nested images into external rows first.
 */
public final class ColumnEntry {
    // cdcwire.values.type_codes.ColumnFlag
    public static final int BINARY = 0x01;
    public static final int PRIMARY_KEY = 0x08;
    public static final int UNSIGNED = 0x80;
    /** The number of fields of COLUMN and of VALUE. */
    static final int COLUMN_FIELDS = 5;
    static final int VALUE_FIELDS = 5;

    // Read by every plugin's encoder, written once here: public and final.
    public final String name;
    public final String typeName; // as given
    public final String type; // upper case, null when absent
    public final Integer flags;
    public final Long intValue;
    public final BigDecimal uintValue;
    public final Double doubleValue;
    public final String stringValue;
    public final byte[] binaryValue;
    public final String mysqlType;
    public final int fieldsSet; // how many VALUE fields are set (at most one in a valid column)

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
        fieldsSet = (intValue != null ? 1 : 0) + (uintValue != null ? 1 : 0) + (doubleValue != null ? 1 : 0)
                + (stringValue != null ? 1 : 0) + (binaryValue != null ? 1 : 0);
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

    /** A text that repeats row after row (a name, a type) in column place {@code column} of its table. */
    private static String repeated(InternalRow r, int i, RepeatedTexts.Slots texts, int column) {
        return r.isNullAt(i) ? null : texts.text(column, i, r.getUTF8String(i));
    }

    private static ColumnEntry of(InternalRow c, RepeatedTexts.Slots texts, int column) {
        InternalRow v = c.isNullAt(3) ? null : c.getStruct(3, VALUE_FIELDS);
        return new ColumnEntry(
                repeated(c, 0, texts, column),
                repeated(c, 1, texts, column),
                c.isNullAt(2) ? null : c.getInt(2),
                v == null || v.isNullAt(0) ? null : v.getLong(0),
                v == null || v.isNullAt(1) ? null : v.getDecimal(1, 20, 0).toJavaBigDecimal(),
                v == null || v.isNullAt(2) ? null : v.getDouble(2),
                v == null ? null : text(v, 3),
                v == null || v.isNullAt(4) ? null : v.getBinary(4),
                repeated(c, 4, texts, column));
    }

    /**
     * One column of an event image as a Java decoder gives it in the Spark event row: {@code name},
     * {@code type}, {@code flags}, the value struct (the one field set of {@code integer},
     * {@code unsigned}, {@code number}, {@code text}, {@code bytes}; none for null) and
     * {@code mysqlType}, in the row schema's order. Names and type texts come already as UTF-8
     * (a decoder keeps them per schema); null where absent.
     */
    public static InternalRow sparkColumn(UTF8String name, UTF8String type, int flags, Long integer, BigDecimal unsigned,
                                          Double number, String text, byte[] bytes, UTF8String mysqlType) {
        return new GenericInternalRow(new Object[] {
            name,
            type,
            flags,
            new GenericInternalRow(new Object[] {
                integer,
                unsigned == null ? null : Decimal.apply(unsigned, 20, 0),
                number,
                text == null ? null : UTF8String.fromString(text),
                bytes,
            }),
            mysqlType,
        });
    }

    /** The entries of an image (array field {@code field} of an internal event row), null for a null
     * image; an entry that is itself null stays null. */
    static List<ColumnEntry> image(InternalRow event, int field, RepeatedTexts.Slots texts) {
        if (event.isNullAt(field)) {
            return null;
        }
        ArrayData entries = event.getArray(field);
        int n = entries.numElements();
        List<ColumnEntry> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(entries.isNullAt(i) ? null : of(entries.getStruct(i, COLUMN_FIELDS), texts, i));
        }
        return out;
    }

    /** The column has {@code flag} ({@link #BINARY}, {@link #PRIMARY_KEY}, {@link #UNSIGNED}). */
    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** The integer value (int or uint field), or null. */
    public BigInteger number() {
        if (intValue != null) {
            return BigInteger.valueOf(intValue);
        }
        return uintValue == null ? null : uintValue.toBigInteger();
    }

    /** Name, type, flags and type text: what makes two images of one shape. */
    public boolean sameShape(ColumnEntry o) {
        return java.util.Objects.equals(name, o.name) && java.util.Objects.equals(typeName, o.typeName)
                && java.util.Objects.equals(flags, o.flags) && java.util.Objects.equals(mysqlType, o.mysqlType);
    }
}
