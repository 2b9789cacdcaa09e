package io.cdcwire.spark;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;

/**
 * A JSON document read by Jackson only where orjson (the Python decoders' reader) surely reads
 * it the same way: strict UTF-8 starting with an object ({@link JsonBytes}), no key twice in an
 * object, nothing after it, no float past the double range, no lone surrogate, nested at most
 * {@link #DEPTH} deep, and no integer past 64 bits unless the caller's value rules take wide
 * ones. Anything else is null: the message is left to the Python decoder, which words the
 * error. Public API of the framework, for every plugin's JSON decoder (one copy of these rules).
 */
public final class SureJson {
    /** The deepest nesting read: deeper documents go to Python. */
    public static final int DEPTH = 200;
    /** Integers past 64 bits read as orjson reads them (a float): up to this many bits. */
    private static final int WIDE_BITS = 4096;
    /** Reads values of a document being streamed: no key twice in an object. */
    public static final ObjectMapper PARTS =
            new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    /** Reads a whole document: no key twice in an object, nothing after it. */
    public static final ObjectMapper WHOLE = PARTS.copy().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private SureJson() {}

    /** The message's JSON object, or null: no integer past 64 bits. */
    public static JsonNode object(byte[] bytes) {
        return bytes == null ? null : object(bytes, 0, bytes.length, false);
    }

    /** The JSON object of {@code bytes[from, to)} (a document inside a larger message), or null.
     * {@code wideIntegers}: integers past 64 bits (up to 4096) are read, for value rules that
     * judge them as orjson reads them, as a float. */
    public static JsonNode object(byte[] bytes, int from, int to, boolean wideIntegers) {
        if (!JsonBytes.plainStart(bytes, from, to) || !JsonBytes.strictUtf8(bytes, from, to)) {
            return null;
        }
        JsonNode doc;
        try {
            doc = WHOLE.readTree(bytes, from, to - from);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        boolean surrogates = JsonBytes.maySurrogate(bytes, from, to);
        return doc != null && doc.isObject() && plain(doc, 0, surrogates, wideIntegers) ? doc : null;
    }

    /** A node Jackson read (at {@code depth}) holds nothing orjson might read otherwise: see the
     * class. {@code surrogates}: its bytes may hold an escaped lone surrogate
     * ({@link JsonBytes#maySurrogate}), so each text is checked. */
    public static boolean plain(JsonNode node, int depth, boolean surrogates, boolean wideIntegers) {
        if (node.isContainerNode()) {
            if (depth > DEPTH) {
                return false;
            }
            if (node.isObject()) {
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    if (surrogates && !JsonBytes.plainText(e.getKey())
                            || !plain(e.getValue(), depth + 1, surrogates, wideIntegers)) {
                        return false;
                    }
                }
            } else {
                for (JsonNode child : node) {
                    if (!plain(child, depth + 1, surrogates, wideIntegers)) {
                        return false;
                    }
                }
            }
            return true;
        }
        if (node.isBigDecimal()) {
            return false;
        }
        if (node.isBigInteger()) { // Python's json refuses integers of over 4300 digits
            return wideIntegers && node.bigIntegerValue().bitLength() <= WIDE_BITS;
        }
        if (node.isFloatingPointNumber()) {
            return Double.isFinite(node.doubleValue());
        }
        return !(surrogates && node.isTextual() && !JsonBytes.plainText(node.textValue()));
    }
}
