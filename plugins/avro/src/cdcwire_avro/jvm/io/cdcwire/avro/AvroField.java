package io.cdcwire.avro;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.ConfigText;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.util.Utf8;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One field of a registered record schema as the Python decoder reads it into a column: the
 * row the driver derived from the Python rules ({@code cdcwire_avro.jvm_reading.field_table}),
 * and the value rule that turns the datum Avro's Java reader gives into the event value.
 */
final class AvroField {
    static final int PLAIN = 0, U64 = 1, U64_TEXT = 2, BIT = 3, ENUM = 4, SET = 5, DECIMAL = 6;
    private static final List<String> RULES = List.of("plain", "u64", "u64Text", "bit", "enum", "set", "decimal");
    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final BigInteger I64_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    final String name;
    final UTF8String name8;
    final String type;
    final UTF8String type8;
    final int flags;
    final int keyFlags;
    final String mysqlType;
    final UTF8String mysqlType8;
    final int rule;
    private final Map<String, Integer> index = new HashMap<>(); // ENUM / SET element -> 1-based
    private final int scale;
    private final int precision;

    AvroField(JsonNode node) {
        name = node.get("name").asText();
        name8 = UTF8String.fromString(name);
        type = node.get("type").asText();
        type8 = UTF8String.fromString(type);
        flags = node.get("flags").asInt();
        keyFlags = node.get("keyFlags").asInt();
        JsonNode mysql = node.get("mysqlType");
        mysqlType = mysql == null || mysql.isNull() ? null : mysql.asText();
        mysqlType8 = mysqlType == null ? null : UTF8String.fromString(mysqlType);
        rule = ConfigText.named(node.get("rule"), RULES, "value rule");
        JsonNode elements = node.get("elements");
        if (elements != null) {
            for (int i = 0; i < elements.size(); i++) {
                index.put(elements.get(i).asText(), i + 1); // a repeated element: the last wins, as in Python
            }
        }
        JsonNode s = node.get("scale");
        scale = s == null ? 0 : s.asInt();
        JsonNode p = node.get("precision");
        precision = p == null ? 0 : p.asInt();
    }

    /** A column value: exactly the slot the event row holds it in (all null for SQL NULL). */
    static final class Value {
        Long integer;
        BigDecimal unsigned;
        Double number;
        String text;
        byte[] bytes;
    }

    /** The event value of a datum, or null where the Python decoder refuses it or this port
     * is not sure it reads it alike. */
    Value value(Object datum) {
        Value v = new Value();
        if (datum == null) {
            return v;
        }
        switch (rule) {
            case PLAIN:
                return plain(datum, v);
            case U64:
                if (!(datum instanceof Long)) {
                    return null;
                }
                return integer(new BigInteger(Long.toUnsignedString((Long) datum)), v);
            case U64_TEXT: {
                String text = text(datum);
                if (text == null || text.isEmpty() || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    return null; // Python's isdigit takes other digits too: its to read
                }
                BigInteger n = new BigInteger(text);
                return n.compareTo(U64_MAX) > 0 ? null : integer(n, v);
            }
            case BIT: {
                byte[] b = bytes(datum);
                if (b == null) {
                    return null;
                }
                BigInteger n = new BigInteger(1, b);
                return n.compareTo(U64_MAX) > 0 ? null : integer(n, v);
            }
            case ENUM: {
                String text = text(datum);
                if (text == null) {
                    return null;
                }
                Integer i = index.get(text);
                if (i == null && !text.isEmpty()) {
                    return null; // not an element: the Python decoder's refusal
                }
                v.integer = i == null ? 0L : (long) i;
                return v;
            }
            case SET: {
                String text = text(datum);
                if (text == null) {
                    return null;
                }
                long mask = 0;
                if (!text.isEmpty()) {
                    for (String part : text.split(",", -1)) {
                        Integer i = index.get(part);
                        if (i == null || i > 63) {
                            return null;
                        }
                        mask |= 1L << (i - 1);
                    }
                }
                v.integer = mask;
                return v;
            }
            case DECIMAL: {
                byte[] b = bytes(datum);
                if (b == null || b.length == 0 || scale < 0) {
                    return null;
                }
                BigInteger unscaled = new BigInteger(b);
                if (unscaled.abs().toString().length() > precision) {
                    return null; // fastavro rounds it to the precision: Python's to read
                }
                v.text = new BigDecimal(unscaled, scale).toPlainString();
                return v;
            }
            default:
                return null;
        }
    }

    private static Value plain(Object datum, Value v) {
        if (datum instanceof Integer || datum instanceof Long) {
            v.integer = ((Number) datum).longValue();
        } else if (datum instanceof Float || datum instanceof Double) {
            v.number = ((Number) datum).doubleValue();
        } else if (datum instanceof Utf8) {
            v.text = text(datum);
            if (v.text == null) {
                return null;
            }
        } else if (datum instanceof ByteBuffer) {
            v.bytes = bytes(datum);
        } else {
            return null;
        }
        return v;
    }

    private static Value integer(BigInteger n, Value v) {
        if (n.compareTo(I64_MAX) <= 0) {
            v.integer = n.longValue();
        } else {
            v.unsigned = new BigDecimal(n);
        }
        return v;
    }

    /** A string datum's text, null unless its bytes are UTF-8 as Python strictly decodes it. */
    private static String text(Object datum) {
        if (!(datum instanceof Utf8)) {
            return null;
        }
        Utf8 u = (Utf8) datum;
        if (!io.cdcwire.spark.JsonBytes.strictUtf8(u.getBytes(), 0, u.getByteLength())) {
            return null;
        }
        return u.toString();
    }

    private static byte[] bytes(Object datum) {
        if (!(datum instanceof ByteBuffer)) {
            return null;
        }
        ByteBuffer b = ((ByteBuffer) datum).duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
