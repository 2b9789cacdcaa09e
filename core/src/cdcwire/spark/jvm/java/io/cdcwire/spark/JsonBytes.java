package io.cdcwire.spark;

/**
 * What a JVM decoder checks of a JSON message's bytes before Jackson reads them, so that it
 * reads only what Python's JSON readers ({@code json}, orjson) read the same way: Jackson
 * would take a BOM, UTF-16 or UTF-32, an overlong UTF-8 sequence or an escaped lone surrogate
 * that Python refuses. Public API of the framework, for every plugin's decoder.
 */
public final class JsonBytes {
    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    private JsonBytes() {}

    /** A text with no lone surrogate (UTF-8 cannot carry one: Python refuses it). */
    public static boolean plainText(String text) {
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (Character.isSurrogate(ch)) {
                if (!Character.isHighSurrogate(ch) || i + 1 >= text.length()
                        || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return false;
                }
                i++;
            }
        }
        return true;
    }

    /** The value starts, after JSON whitespace, with {@code {}, and no NUL is among its first
     * four bytes (Jackson would take those as UTF-16 or UTF-32; Python reads UTF-8 only). */
    public static boolean plainStart(byte[] value) {
        return plainStart(value, 0, value.length);
    }

    /** {@link #plainStart(byte[])} of the bytes {@code from} (inclusive) to {@code to}
     * (exclusive): a document inside a larger message (open-protocol's length-prefixed ones). */
    public static boolean plainStart(byte[] value, int from, int to) {
        for (int i = from; i < Math.min(from + 4, to); i++) {
            if (value[i] == 0) {
                return false;
            }
        }
        for (int i = from; i < to; i++) {
            byte b = value[i];
            if (b == '{') {
                return true;
            }
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                return false;
            }
        }
        return false;
    }

    /** Strict UTF-8, as Python decodes it: no overlong form, no surrogate, nothing past U+10FFFF,
     * no sequence cut short. */
    public static boolean strictUtf8(byte[] value) {
        return strictUtf8(value, 0, value.length);
    }

    /** {@link #strictUtf8(byte[])} of the bytes {@code from} (inclusive) to {@code to} (exclusive). */
    public static boolean strictUtf8(byte[] value, int from, int to) {
        int i = from;
        int n = to;
        while (i < n) {
            if (i + 8 <= n && ((long) LONGS.get(value, i) & 0x8080808080808080L) == 0) {
                i += 8; // eight ASCII bytes at once
                continue;
            }
            int b = value[i];
            if (b >= 0) {
                i++;
                continue;
            }
            b &= 0xFF;
            int more;
            int min;
            if (b >= 0xC2 && b <= 0xDF) {
                more = 1;
                min = 0x80;
            } else if (b >= 0xE0 && b <= 0xEF) {
                more = 2;
                min = 0x800;
            } else if (b >= 0xF0 && b <= 0xF4) {
                more = 3;
                min = 0x10000;
            } else {
                return false;
            }
            if (i + more >= n) {
                return false;
            }
            int cp = b & (0x3F >> more);
            for (int k = 1; k <= more; k++) {
                int c = value[i + k] & 0xFF;
                if ((c & 0xC0) != 0x80) {
                    return false;
                }
                cp = (cp << 6) | (c & 0x3F);
            }
            if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                return false;
            }
            i += more + 1;
        }
        return true;
    }

    /** Whether a text of these bytes may hold a surrogate: a four-byte sequence (a pair in Java)
     * or a JSON escape of one (backslash, u, D800 to DFFF); else no text needs the look. */
    public static boolean maySurrogate(byte[] value) {
        return maySurrogate(value, 0, value.length);
    }

    /** {@link #maySurrogate(byte[])} of the bytes {@code from} (inclusive) to {@code to} (exclusive). */
    public static boolean maySurrogate(byte[] value, int from, int to) {
        int n = to;
        for (int i = from; i < n; i++) {
            if (i + 8 <= n) {
                long w = (long) LONGS.get(value, i);
                long x = w ^ 0x5C5C5C5C5C5C5C5CL; // a zero byte where w has a backslash
                if (((w | ((x - 0x0101010101010101L) & ~x)) & 0x8080808080808080L) == 0) {
                    i += 7; // eight bytes, none non-ASCII, none a backslash
                    continue;
                }
            }
            int b = value[i] & 0xFF;
            if (b >= 0xF0) {
                return true;
            }
            if (b == '\\' && i + 2 < n && value[i + 1] == 'u' && (value[i + 2] | 0x20) == 'd') {
                return true;
            }
        }
        return false;
    }
}
