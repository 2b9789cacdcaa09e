package io.cdcwire.open;

import io.cdcwire.spark.FloatText;
import java.math.BigDecimal;

/**
 * The texts open-protocol's Python encoder writes as Go would ({@code cdcwire_open.json_text},
 * {@code go_quote}): float32 and float64 numbers (plain between 1e-6 and 1e21, else with an
 * exponent), Go's {@code strconv.Quote} of bytes, and the HTML-safe escapes of a document. Each
 * returns null for what it is not sure of: the row is then Python's.
 */
final class GoText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final double F32_LOW = (float) 1e-6;
    private static final double F32_HIGH = (float) 1e21;

    private GoText() {
    }

    /** A DOUBLE as {@code float64_json} writes it, or null for NaN and the infinities. */
    static String float64(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return null;
        }
        if (x == 0) {
            return Double.doubleToRawLongBits(x) < 0 ? "-0.0" : "0.0"; // Python's repr, as it is
        }
        return number(new BigDecimal(FloatText.float64(x)), Math.abs(x), 1e-6, 1e21);
    }

    /** A FLOAT as {@code float32_json} writes it, or null past the float32 range, NaN, the infinities. */
    static String float32(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v) || Float.isInfinite((float) v)) {
            return null;
        }
        float x = (float) v;
        if (x == 0) {
            return Float.floatToRawIntBits(x) < 0 ? "-0.0" : "0";
        }
        return number(new BigDecimal(FloatText.float32(x)), Math.abs((double) x), F32_LOW, F32_HIGH);
    }

    /** {@code _go_number}: the shortest digits plain in [low, high), else d[.ddd]e±x (e+ two digits at least). */
    private static String number(BigDecimal digits, double magnitude, double low, double high) {
        digits = digits.stripTrailingZeros();
        if (magnitude >= low && magnitude < high) {
            return digits.toPlainString();
        }
        String unscaled = digits.unscaledValue().abs().toString();
        int exponent = unscaled.length() - 1 - digits.scale();
        StringBuilder out = new StringBuilder();
        if (digits.signum() < 0) {
            out.append('-');
        }
        out.append(unscaled.charAt(0));
        if (unscaled.length() > 1) {
            out.append('.').append(unscaled, 1, unscaled.length());
        }
        out.append('e').append(exponent < 0 ? '-' : '+');
        String e = Integer.toString(Math.abs(exponent));
        if (exponent >= 0 && e.length() < 2) {
            out.append('0');
        }
        return out.append(e).toString();
    }

    /**
     * {@code go_quote}: the inside of Go's quoted text of {@code data} (Python's reading of it,
     * undecodable bytes as {@code \xNN}); {@code cfg} says which non-ASCII characters Python escapes
     * (its {@code str.isprintable}, probed by the glue: this JVM's Unicode version may differ).
     */
    static String quote(OpenWriting cfg, byte[] data) {
        StringBuilder out = new StringBuilder(data.length + 8);
        int i = 0;
        while (i < data.length) {
            int b = data[i] & 0xFF;
            if (b < 0x80) {
                ascii(out, b);
                i++;
                continue;
            }
            int length = sequence(data, i);
            if (length == 0) {
                out.append("\\x").append(HEX[b >> 4]).append(HEX[b & 0xF]);
                i++;
                continue;
            }
            int cp = new String(data, i, length, java.nio.charset.StandardCharsets.UTF_8).codePointAt(0);
            i += length;
            if (!cfg.escaped(cp)) {
                out.appendCodePoint(cp);
            } else if (cp < 0x10000) {
                out.append("\\u").append(hex(cp, 4));
            } else {
                out.append("\\U").append(hex(cp, 8));
            }
        }
        return out.toString();
    }

    private static void ascii(StringBuilder out, int b) {
        switch (b) {
            case 0x07: out.append("\\a"); return;
            case '\b': out.append("\\b"); return;
            case '\f': out.append("\\f"); return;
            case '\n': out.append("\\n"); return;
            case '\r': out.append("\\r"); return;
            case '\t': out.append("\\t"); return;
            case 0x0B: out.append("\\v"); return;
            case '"': out.append("\\\""); return;
            case '\\': out.append("\\\\"); return;
            default:
        }
        if (b < 0x20 || b == 0x7F) {
            out.append("\\x").append(HEX[b >> 4]).append(HEX[b & 0xF]);
        } else {
            out.append((char) b);
        }
    }

    /** The length of the well-formed UTF-8 sequence at {@code i} (Unicode's table 3-7), 0 if none. */
    private static int sequence(byte[] d, int i) {
        int b = d[i] & 0xFF;
        int n;
        int lo = 0x80, hi = 0xBF;
        if (b >= 0xC2 && b <= 0xDF) {
            n = 2;
        } else if (b >= 0xE0 && b <= 0xEF) {
            n = 3;
            if (b == 0xE0) {
                lo = 0xA0;
            } else if (b == 0xED) {
                hi = 0x9F;
            }
        } else if (b >= 0xF0 && b <= 0xF4) {
            n = 4;
            if (b == 0xF0) {
                lo = 0x90;
            } else if (b == 0xF4) {
                hi = 0x8F;
            }
        } else {
            return 0;
        }
        if (i + n > d.length) {
            return 0;
        }
        int second = d[i + 1] & 0xFF;
        if (second < lo || second > hi) {
            return 0;
        }
        for (int k = 2; k < n; k++) {
            int c = d[i + k] & 0xFF;
            if (c < 0x80 || c > 0xBF) {
                return 0;
            }
        }
        return n;
    }

    private static String hex(int value, int digits) {
        char[] out = new char[digits];
        for (int k = digits - 1; k >= 0; k--) {
            out[k] = HEX[value & 0xF];
            value >>>= 4;
        }
        return new String(out);
    }

    /**
     * Go's HTML-safe escapes over a finished JSON document ({@code go_html_escape}). Read as a
     * String: a StringBuilder holding any non-Latin-1 text checks the index of every
     * {@code charAt} (a tenth of an open-protocol encoding pass, measured), a String's is intrinsic.
     */
    static String htmlEscaped(CharSequence document) {
        String text = document.toString();
        int n = text.length();
        StringBuilder out = null;
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            String esc = c == '<' ? "\\u003c" : c == '>' ? "\\u003e" : c == '&' ? "\\u0026"
                    : c == '\u2028' ? "\\u2028" : c == '\u2029' ? "\\u2029" : null;
            if (esc != null && out == null) {
                out = new StringBuilder(n + 16).append(text, 0, i);
            }
            if (out != null) {
                if (esc != null) {
                    out.append(esc);
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? text : out.toString();
    }
}
