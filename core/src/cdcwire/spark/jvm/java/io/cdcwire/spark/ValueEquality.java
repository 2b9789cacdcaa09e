package io.cdcwire.spark;

import java.math.BigDecimal;
import java.util.Arrays;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * Python's {@code ==} of two VALUE structs' values (None, int, float, str, bytes), as
 * {@code jvm_routing._value_equal} says it in SQL: two absent values are equal; numbers by value
 * across the int, uint and double fields (NaN equal to nothing); text and bytes only to their
 * own kind. Never null: every clause of the SQL expression is coalesced to false.
 */
final class ValueEquality {
    private ValueEquality() {}

    static boolean equal(InternalRow a, InternalRow b) {
        if (none(a) && none(b)) {
            return true;
        }
        if (a == null || b == null) {
            return false;
        }
        if (!a.isNullAt(3) && !b.isNullAt(3) && a.getUTF8String(3).equals(b.getUTF8String(3))) {
            return true;
        }
        if (!a.isNullAt(4) && !b.isNullAt(4) && Arrays.equals(a.getBinary(4), b.getBinary(4))) {
            return true;
        }
        BigDecimal ia = integer(a);
        BigDecimal ib = integer(b);
        if (ia != null && ib != null && ia.compareTo(ib) == 0) {
            return true;
        }
        boolean da = !a.isNullAt(2);
        boolean db = !b.isNullAt(2);
        if (da && db && !Double.isNaN(a.getDouble(2)) && a.getDouble(2) == b.getDouble(2)) {
            return true;
        }
        if (ia != null && db && ia.doubleValue() == b.getDouble(2)) {
            return true;
        }
        return da && ib != null && a.getDouble(2) == ib.doubleValue();
    }

    private static boolean none(InternalRow v) {
        if (v == null) {
            return true;
        }
        for (int i = 0; i < ColumnEntry.VALUE_FIELDS; i++) {
            if (!v.isNullAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static BigDecimal integer(InternalRow v) {
        if (!v.isNullAt(0)) {
            return BigDecimal.valueOf(v.getLong(0));
        }
        return v.isNullAt(1) ? null : v.getDecimal(1, 20, 0).toJavaBigDecimal();
    }
}
