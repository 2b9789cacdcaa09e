package io.cdcwire.open;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.JsonBytes;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A column's non-null JSON value read as {@code cdcwire_open.column_values}' reader of its rule
 * reads it ({@link OpenConfig}: which reader, probed from the installed decoder), into the
 * event row's VALUE fields. {@link #read} gives null wherever that reader refuses the value or
 * this port is not sure to agree: the message is then the Python decoder's.
 */
final class OpenValues {
    /** A value read: at most one of the event row's VALUE fields set. */
    static final class Value {
        Long integer;
        BigDecimal unsigned;
        Double number;
        String text;
        byte[] bytes;
    }

    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private OpenValues() {}

    static Value read(int rule, JsonNode raw) {
        Value v = new Value();
        switch (rule) {
            case OpenConfig.INT:
                if (!raw.isIntegralNumber()) {
                    return null;
                }
                if (raw.canConvertToLong()) {
                    v.integer = raw.longValue();
                    return v;
                }
                BigInteger big = raw.bigIntegerValue(); // past 2^63 - 1: BIGINT UNSIGNED, BIT(64)
                if (big.signum() < 0 || big.compareTo(U64_MAX) > 0) {
                    return null;
                }
                v.unsigned = new BigDecimal(big);
                return v;
            case OpenConfig.FLOAT32: {
                Double d = number(raw);
                if (d == null) {
                    return null;
                }
                float f = (float) (double) d;
                if (Float.isInfinite(f)) {
                    return null; // past the float32 range: refused in Python
                }
                v.number = (double) f;
                return v;
            }
            case OpenConfig.DOUBLE:
                v.number = number(raw);
                return v.number == null ? null : v;
            case OpenConfig.TEXT:
                if (!raw.isTextual()) {
                    return null;
                }
                v.text = raw.textValue();
                return v;
            case OpenConfig.QUOTED:
                v.bytes = raw.isTextual() ? GoQuoted.unquote(raw.textValue()) : null;
                return v.bytes == null ? null : v;
            case OpenConfig.BASE64:
                v.bytes = base64(raw);
                return v.bytes == null ? null : v;
            case OpenConfig.BASE64_TEXT: {
                byte[] bytes = base64(raw);
                if (bytes == null || !JsonBytes.strictUtf8(bytes)) {
                    return null; // not UTF-8: refused in Python (a BLOB carries the binary flag)
                }
                v.text = new String(bytes, StandardCharsets.UTF_8);
                return v;
            }
            default:
                return null;
        }
    }

    /** An int or float JSON number (never a boolean) as a finite double, as {@code float(v)}:
     * correctly rounded, as orjson reads an integer past 64 bits (as a float) and Python's
     * {@code float(int)} rounds one. */
    private static Double number(JsonNode raw) {
        if (!raw.isNumber()) {
            return null;
        }
        double d = !raw.isIntegralNumber() ? raw.doubleValue()
                : raw.canConvertToLong() ? (double) raw.longValue() : raw.bigIntegerValue().doubleValue();
        return Double.isFinite(d) ? d : null;
    }

    /**
     * {@code base64.b64decode(v, validate=True)}, for the canonical form only: the alphabet in
     * groups of four, padding only at the end, the padded group's unused bits zero (Python
     * ignores them; a text with them set is left to it).
     */
    private static byte[] base64(JsonNode raw) {
        if (!raw.isTextual()) {
            return null;
        }
        String s = raw.textValue();
        int n = s.length();
        if (n % 4 != 0) {
            return null;
        }
        int pad = n > 0 && s.charAt(n - 1) == '=' ? (s.charAt(n - 2) == '=' ? 2 : 1) : 0;
        for (int i = 0; i < n - pad; i++) {
            if (sextet(s.charAt(i)) < 0) {
                return null;
            }
        }
        if (pad == 2 && (sextet(s.charAt(n - 3)) & 0x0F) != 0 || pad == 1 && (sextet(s.charAt(n - 2)) & 0x03) != 0) {
            return null;
        }
        return Base64.getDecoder().decode(s);
    }

    private static int sextet(char c) {
        if (c >= 'A' && c <= 'Z') {
            return c - 'A';
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 26;
        }
        if (c >= '0' && c <= '9') {
            return c - '0' + 52;
        }
        return c == '+' ? 62 : c == '/' ? 63 : -1;
    }
}
