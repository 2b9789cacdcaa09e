package io.cdcwire.open;

import io.cdcwire.spark.JsonBytes;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The bytes of a binary CHAR/VARCHAR value: the inside of a Go double-quoted string
 * ({@code strconv.Unquote}), as {@code cdcwire_open.go_quote.go_unquote} reads it: literal text as
 * its UTF-8, {@code \xNN}, three-digit octal up to {@code \377}, {@code \}{@code uXXXX} and
 * {@code \UXXXXXXXX} runes (no surrogate, nothing past U+10FFFF) and the short escapes
 * {@code \a \b \f \n \r \t \v \\ \"}. Null wherever Go (and so the Python decoder) refuses
 * the text: the message is then the Python decoder's, which names what is wrong.
 */
final class GoQuoted {
    private GoQuoted() {}

    static byte[] unquote(String text) {
        int n = text.length();
        int plain = 0;
        while (plain < n) {
            char ch = text.charAt(plain);
            if (ch == '\\' || ch == '"' || ch == '\n') {
                break;
            }
            plain++;
        }
        if (plain == n) {
            return JsonBytes.plainText(text) ? text.getBytes(StandardCharsets.UTF_8) : null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(n);
        int i = 0;
        while (i < n) {
            char ch = text.charAt(i);
            if (ch == '"' || ch == '\n') {
                return null; // unescaped
            }
            if (ch != '\\') {
                int end = i;
                while (end < n && text.charAt(end) != '\\' && text.charAt(end) != '"' && text.charAt(end) != '\n') {
                    end++;
                }
                String run = text.substring(i, end);
                if (!JsonBytes.plainText(run)) {
                    return null; // a lone surrogate: UTF-8 cannot carry it
                }
                out.writeBytes(run.getBytes(StandardCharsets.UTF_8));
                i = end;
                continue;
            }
            if (i + 1 >= n) {
                return null;
            }
            char kind = text.charAt(i + 1);
            switch (kind) {
                case 'x': {
                    int v = hex(text, i + 2, 2);
                    if (v < 0) {
                        return null;
                    }
                    out.write(v);
                    i += 4;
                    break;
                }
                case 'u':
                case 'U': {
                    int digits = kind == 'u' ? 4 : 8;
                    long code = hexLong(text, i + 2, digits);
                    if (code < 0 || code > 0x10FFFF || code >= 0xD800 && code <= 0xDFFF) {
                        return null;
                    }
                    out.writeBytes(new String(Character.toChars((int) code)).getBytes(StandardCharsets.UTF_8));
                    i += 2 + digits;
                    break;
                }
                case 'a': out.write(7); i += 2; break;
                case 'b': out.write('\b'); i += 2; break;
                case 'f': out.write('\f'); i += 2; break;
                case 'n': out.write('\n'); i += 2; break;
                case 'r': out.write('\r'); i += 2; break;
                case 't': out.write('\t'); i += 2; break;
                case 'v': out.write(11); i += 2; break;
                case '\\': out.write('\\'); i += 2; break;
                case '"': out.write('"'); i += 2; break;
                default: {
                    if (kind < '0' || kind > '7' || i + 4 > n) {
                        return null;
                    }
                    int v = 0;
                    for (int k = 1; k <= 3; k++) {
                        char d = text.charAt(i + k);
                        if (d < '0' || d > '7') {
                            return null;
                        }
                        v = v * 8 + (d - '0');
                    }
                    if (v > 255) {
                        return null;
                    }
                    out.write(v);
                    i += 4;
                }
            }
        }
        return out.toByteArray();
    }

    private static int hex(String text, int from, int digits) {
        long v = hexLong(text, from, digits);
        return (int) v;
    }

    /** The ASCII hex digits at {@code from}, or -1. */
    private static long hexLong(String text, int from, int digits) {
        if (from + digits > text.length()) {
            return -1;
        }
        long v = 0;
        for (int k = from; k < from + digits; k++) {
            char d = text.charAt(k);
            int x;
            if (d >= '0' && d <= '9') {
                x = d - '0';
            } else if (d >= 'a' && d <= 'f') {
                x = d - 'a' + 10;
            } else if (d >= 'A' && d <= 'F') {
                x = d - 'A' + 10;
            } else {
                return -1;
            }
            v = v * 16 + x;
        }
        return v;
    }
}
