package io.cdcwire.spark;

import com.fasterxml.jackson.core.io.schubfach.DoubleToDecimal;
import com.fasterxml.jackson.core.io.schubfach.FloatToDecimal;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Float values as {@code cdcwire.model.value_text} writes them: the shortest text that reads back to
 * the same float of the column's width, in plain decimal (no exponent, no trailing zeros).
 *
 * <p>Java 17's {@code Double.toString} is not always the shortest text, so it is not used.
 * DOUBLE: the Schubfach algorithm (jackson-core's, Java 19's {@code Double.toString}) gives the
 * shortest decimal closest to the value, as Python's {@code repr} does, except that it never
 * gives fewer than two digits: where one digit reads back, the closest such digit is taken
 * instead. FLOAT: Python's own search, {@code "%.*g" % (p, x)} for p = 1..9 read back through a
 * float64 to a float32, the first that gives the same bits. The search starts one digit below
 * the shortest float32 text (Schubfach's): no shorter text can read back (double rounding
 * differs from direct rounding only for texts of about 17 digits).
 */
public final class FloatText {
    private FloatText() {}

    public static String float64(double x) {
        if (x == 0) {
            return (Double.doubleToRawLongBits(x) < 0) ? "-0" : "0";
        }
        BigDecimal shortest = new BigDecimal(DoubleToDecimal.toString(x)).stripTrailingZeros();
        if (shortest.precision() == 2) {
            BigDecimal one = oneDigit(x, shortest);
            if (one != null) {
                shortest = one;
            }
        }
        return plain(shortest);
    }

    /** The one-digit decimal closest to {@code x} that reads back to it, or null. */
    private static BigDecimal oneDigit(double x, BigDecimal twoDigits) {
        BigDecimal exact = new BigDecimal(x);
        BigDecimal best = null;
        for (RoundingMode mode : new RoundingMode[] {RoundingMode.FLOOR, RoundingMode.CEILING}) {
            BigDecimal candidate = twoDigits.round(new MathContext(1, mode));
            if (Double.parseDouble(candidate.toString()) == x
                    && (best == null || candidate.subtract(exact).abs().compareTo(best.subtract(exact).abs()) < 0)) {
                best = candidate;
            }
        }
        return best;
    }

    public static String float32(double value) {
        float x = (float) value;
        if (x == 0) {
            return (Float.floatToRawIntBits(x) < 0) ? "-0" : "0";
        }
        int bits = Float.floatToRawIntBits(x);
        BigDecimal exact = new BigDecimal((double) x);
        int shortest = new BigDecimal(FloatToDecimal.toString(x)).stripTrailingZeros().precision();
        for (int precision = Math.max(1, shortest - 1); precision <= 9; precision++) {
            BigDecimal text = exact.round(new MathContext(precision, RoundingMode.HALF_EVEN));
            double read = Double.parseDouble(text.toString());
            float back = (float) read;
            if (Float.isInfinite(back) && !Double.isInfinite(read)) {
                continue; // Python's struct.pack overflows here; more digits will not
            }
            if (Float.floatToRawIntBits(back) == bits) {
                return plain(text.stripTrailingZeros());
            }
        }
        return float64(x);
    }

    private static String plain(BigDecimal value) {
        String text = value.stripTrailingZeros().toPlainString();
        if (text.indexOf('.') >= 0) {
            int end = text.length();
            while (text.charAt(end - 1) == '0') {
                end--;
            }
            if (text.charAt(end - 1) == '.') {
                end--;
            }
            text = text.substring(0, end);
        }
        return text;
    }
}
