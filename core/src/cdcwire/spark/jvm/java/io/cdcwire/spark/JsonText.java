package io.cdcwire.spark;

/**
 * JSON strings as Python's {@code json.dumps(..., ensure_ascii=False)} writes them: {@code "} and
 * {@code \} escaped, the short escapes {@code \b \f \n \r \t}, every other control character as
 * {@code \}{@code u00xx} in lower case (Jackson writes upper case), everything else as it is.
 *
 * <p>A lone surrogate, which UTF-8 cannot carry, makes {@link #append} return false: the Python
 * codec refuses such text with its own error, so the row is left to it.
 */
public final class JsonText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonText() {}

    /** Appends {@code text} as a quoted JSON string; false when it holds a lone surrogate. */
    public static boolean append(StringBuilder out, String text) {
        out.append('"');
        int n = text.length();
        int plain = 0; // the text up to its first character that needs a look is copied at once
        while (plain < n) {
            char c = text.charAt(plain);
            if (c < 0x20 || c == '"' || c == '\\' || Character.isSurrogate(c)) {
                break;
            }
            plain++;
        }
        out.append(text, 0, plain);
        for (int i = plain; i < n; i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                if (Character.isSurrogate(c)) {
                    if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                        out.append(c).append(text.charAt(++i));
                        continue;
                    }
                    return false;
                }
                out.append(c);
                continue;
            }
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\b': out.append("\\b"); break;
                case '\f': out.append("\\f"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default: out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        out.append('"');
        return true;
    }

    /** Bytes as ISO-8859-1 text (each byte one character), as canal-json writes binary values. */
    public static String latin1(byte[] bytes) {
        return new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
    }
}
