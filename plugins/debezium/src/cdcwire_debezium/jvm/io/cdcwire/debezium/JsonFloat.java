package io.cdcwire.debezium;

import io.cdcwire.spark.FloatText;
import java.math.BigDecimal;

/**
 * A double as orjson writes it (the debezium encoder serializes with orjson): the shortest digits
 * that read back (Python's {@code repr} digits, which {@link FloatText#float64} gives), in plain
 * notation with at least one fraction digit ({@code 1.0}, {@code 0.00001}) for a decimal exponent
 * from -5 to 15, else as {@code d[.ddd]e+N} / {@code d[.ddd]e-N} ({@code 1e+16}, {@code 1.5e-7}).
 */
final class JsonFloat {
    private JsonFloat() {}

    /** The JSON number of a finite double. */
    static String of(double x) {
        if (x == 0) {
            return Double.doubleToRawLongBits(x) < 0 ? "-0.0" : "0.0";
        }
        BigDecimal shortest = new BigDecimal(FloatText.float64(x)).stripTrailingZeros();
        String digits = shortest.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - shortest.scale();
        StringBuilder out = new StringBuilder(digits.length() + 8);
        if (x < 0) {
            out.append('-');
        }
        if (exponent >= -5 && exponent < 16) {
            if (exponent < 0) {
                out.append("0.");
                for (int i = -1; i > exponent; i--) {
                    out.append('0');
                }
                out.append(digits);
            } else if (digits.length() <= exponent + 1) {
                out.append(digits);
                for (int i = digits.length(); i <= exponent; i++) {
                    out.append('0');
                }
                out.append(".0");
            } else {
                out.append(digits, 0, exponent + 1).append('.').append(digits, exponent + 1, digits.length());
            }
        } else {
            out.append(digits.charAt(0));
            if (digits.length() > 1) {
                out.append('.').append(digits, 1, digits.length());
            }
            out.append('e').append(exponent < 0 ? '-' : '+').append(Math.abs(exponent));
        }
        return out.toString();
    }
}
