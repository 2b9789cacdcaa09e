package io.cdcwire.spark;

import java.nio.charset.StandardCharsets;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * The bytes the index-value dispatcher hashes for a column value, as
 * {@code cdcwire.model.value_text.hash_text} gives them (and {@code sql_value_text.hash_text} in SQL):
 * bytes as they are, text in UTF-8, integers in decimal, floats as the shortest text of the
 * column's width in plain decimal ({@link FloatText}), NaN and the infinities in Go's spelling,
 * {@code null} for SQL NULL.
 */
final class HashText {
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);

    private HashText() {}

    /** The hash text of a COLUMN struct of the event row. */
    static byte[] of(InternalRow column) {
        if (column.isNullAt(3)) {
            return NULL;
        }
        InternalRow v = column.getStruct(3, ColumnEntry.VALUE_FIELDS);
        if (!v.isNullAt(4)) {
            return v.getBinary(4);
        }
        if (!v.isNullAt(3)) {
            return v.getUTF8String(3).getBytes();
        }
        if (!v.isNullAt(0)) {
            return ascii(Long.toString(v.getLong(0)));
        }
        if (!v.isNullAt(1)) {
            return ascii(v.getDecimal(1, 20, 0).toJavaBigDecimal().toPlainString());
        }
        if (!v.isNullAt(2)) {
            boolean float32 = !column.isNullAt(1) && column.getUTF8String(1).toUpperCase().toString().equals("FLOAT");
            return ascii(floatText(v.getDouble(2), float32));
        }
        return NULL;
    }

    private static String floatText(double d, boolean float32) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "+Inf" : "-Inf";
        }
        return float32 ? FloatText.float32(d) : FloatText.float64(d);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
