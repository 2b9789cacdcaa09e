package io.cdcwire.debezium;

import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.JsonText;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One column's type as the debezium encoder writes it: its value rule and field schema
 * ({@link DebeziumWriting.Field}, by type code and flags) and the few facts of its type text
 * that pick a schema variant or shape a value, read as {@code field_types.field_type_of_column}
 * reads them: DATETIME/TIMESTAMP fsp ({@code datetime(3)}; without a type text each value's
 * fraction digits), FLOAT's scale, BIT's width ({@code bit} alone is 1 wide, no type text 64),
 * ENUM/SET's elements. Only the plain forms the record checks let through are read (no spaces
 * inside, no quote or backslash in an element): a column of any other type text is Python's.
 */
final class DebeziumColumn {
    private static final int NULLABLE = 0x40;
    private static final BigInteger U64_LIMIT = BigInteger.ONE.shiftLeft(64);
    private static final Pattern NUMBERS =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(?:\\(([0-9]{1,10})(?:,([0-9]{1,10}))?\\))?(?: [A-Za-z0-9_]+)*");
    private static final Pattern ELEMENTS =
            Pattern.compile("[A-Za-z]+\\(('[^'\\\\]*'(?:,'[^'\\\\]*')*)\\)(?: [A-Za-z0-9_]+)*");
    private static final Pattern ELEMENT = Pattern.compile("'([^'\\\\]*)'");

    final DebeziumWriting.Field field;
    final int rule;
    private final boolean optional;
    /** DATETIME/TIMESTAMP: the type text's fsp; -1 without a type text (each value's digits). */
    final int fsp;
    private final int bitLength;
    private final boolean scaled; // FLOAT declared with a scale: written as "double"
    private final String[] elements; // ENUM/SET: each element as a JSON string
    private final String allowed; // ENUM/SET: the allowed parameter as a JSON string
    /** The field schema up to its name, or null where each value's digits pick it (a DATETIME without fsp). */
    private final String schema;

    private DebeziumColumn(DebeziumWriting.Field field, int flags, int fsp, int bitLength, boolean scaled,
                           String[] elements, String allowed) {
        this.field = field;
        this.rule = field.rule;
        this.optional = (flags & NULLABLE) != 0;
        this.fsp = fsp;
        this.bitLength = bitLength;
        this.scaled = scaled;
        this.elements = elements;
        this.allowed = allowed;
        this.schema = schemaOf(fsp);
    }

    /** The column's type as Java writes it, or null where Java has no rule or does not read its type text. */
    static DebeziumColumn of(DebeziumWriting cfg, ColumnEntry c) {
        DebeziumWriting.Field field = cfg.field(c.type, c.flags);
        if (field == null) {
            return null;
        }
        String text = c.mysqlType;
        int fsp = -1, bitLength = 64;
        String[] elements = null;
        String allowed = null;
        boolean scaled = false;
        switch (field.rule) {
            case DebeziumWriting.DATETIME:
            case DebeziumWriting.TIMESTAMP:
                if (text != null) {
                    Integer length = number(text, 1);
                    if (length == null || length > 6) {
                        return null;
                    }
                    fsp = length; // "or 0"
                }
                break;
            case DebeziumWriting.FLOAT32: {
                Matcher m = text == null ? null : NUMBERS.matcher(text);
                if (m != null && !m.matches()) {
                    return null;
                }
                scaled = m != null && m.group(2) != null; // "parsed.scale is not None"
                if ((scaled ? field.scaled : field.schema) == null) {
                    return null;
                }
                break;
            }
            case DebeziumWriting.BIT:
                if (text != null) {
                    Integer length = number(text, 1);
                    if (length == null || length > 64) {
                        return null;
                    }
                    bitLength = Math.max(length, 1); // "or 1"
                }
                if (bitLength == 1 ? field.schema == null : field.bits == null) {
                    return null;
                }
                break;
            case DebeziumWriting.ENUM:
            case DebeziumWriting.SET: {
                List<String> names = text == null ? null : elements(text);
                if (names == null || field.allowed == null) {
                    return null;
                }
                elements = new String[names.size()];
                StringBuilder joined = new StringBuilder();
                for (int i = 0; i < elements.length; i++) {
                    String name = names.get(i);
                    StringBuilder json = new StringBuilder(name.length() + 2);
                    if (!JsonText.append(json, name)) {
                        return null;
                    }
                    elements[i] = json.toString();
                    joined.append(i == 0 ? "" : ",")
                            .append(field.rule == DebeziumWriting.ENUM ? name.replace(",", "\\,") : name);
                }
                StringBuilder json = new StringBuilder(joined.length() + 2);
                if (!JsonText.append(json, joined.toString())) {
                    return null;
                }
                allowed = json.toString();
                break;
            }
            default:
                if (field.schema == null) {
                    return null;
                }
        }
        return new DebeziumColumn(field, c.flags, fsp, bitLength, scaled, elements, allowed);
    }

    /**
     * The first ({@code group} 1) or second (2) number of a plain {@code name(n[,m]) words} type
     * text, 0 where it has none ({@code parsed.length or 0}), null for a text of another form.
     */
    private static Integer number(String text, int group) {
        Matcher m = NUMBERS.matcher(text);
        if (!m.matches()) {
            return null;
        }
        String found = m.group(group);
        if (found == null) {
            return 0;
        }
        long n = Long.parseLong(found);
        return n > 1000 ? Integer.valueOf(1001) : Integer.valueOf((int) n);
    }

    /** The elements of a plain {@code enum('a','b')} text, or null. */
    private static List<String> elements(String text) {
        Matcher m = ELEMENTS.matcher(text);
        if (!m.matches()) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (Matcher e = ELEMENT.matcher(m.group(1)); e.find(); ) {
            out.add(e.group(1));
        }
        return out;
    }

    /** The field schema up to its name for a column whose DATETIME fsp is {@code digits}. */
    private String schemaOf(int digits) {
        switch (rule) {
            case DebeziumWriting.DATETIME:
                return digits < 0 ? null : digits <= 3 ? field.schema : field.micro;
            case DebeziumWriting.FLOAT32:
                return scaled ? field.scaled : field.schema;
            case DebeziumWriting.BIT:
                if (bitLength == 1) {
                    return field.schema;
                }
                StringBuilder bits = new StringBuilder();
                field.bits.fill(bits, "\"" + bitLength + "\"");
                return bits.toString();
            case DebeziumWriting.ENUM:
            case DebeziumWriting.SET:
                StringBuilder out = new StringBuilder();
                field.allowed.fill(out, allowed);
                return out.toString();
            default:
                return field.schema;
        }
    }

    /** The field schema up to its name of the column {@code c} of an image (a DATETIME without fsp:
     * by the fraction digits of its value there, 0 for NULL), or null where Java has none. */
    String schema(ColumnEntry c) {
        if (schema != null) {
            return schema;
        }
        return schemaOf(c.stringValue == null ? 0 : DebeziumTemporal.fractionDigits(c.stringValue));
    }

    /** True for a column whose schema each value's digits pick (a DATETIME without a type text). */
    boolean schemaByValue() {
        return schema == null;
    }

    /** Appends the JSON value of the column {@code c}; false where Java is not sure of it. */
    boolean value(StringBuilder out, ColumnEntry c) {
        if (c.fieldsSet == 0) {
            out.append("null");
            return true;
        }
        switch (rule) {
            case DebeziumWriting.SAME:
                if (c.intValue != null) {
                    out.append(c.intValue.longValue());
                    return true;
                }
                if (c.uintValue != null) {
                    out.append(c.uintValue.toBigInteger());
                    return true;
                }
                return c.stringValue != null && JsonText.append(out, c.stringValue);
            case DebeziumWriting.U64: {
                BigInteger n = c.number();
                if (n == null) {
                    return false;
                }
                out.append(n.longValue()); // the int64 of its bits: 2^64-1 as -1
                return true;
            }
            case DebeziumWriting.BASE64:
                if (c.binaryValue == null) {
                    return false;
                }
                out.append('"').append(Base64.getEncoder().encodeToString(c.binaryValue)).append('"');
                return true;
            case DebeziumWriting.DOUBLE:
                return c.doubleValue != null && number(out, c.doubleValue);
            case DebeziumWriting.DECIMAL:
                // Python's float() of the text the record checks let through: both round correctly
                return c.stringValue != null && number(out, Double.parseDouble(c.stringValue));
            case DebeziumWriting.FLOAT32: {
                // float(float32_text(x)): the double of the shortest text that reads back to x's float32
                if (c.doubleValue == null || !Double.isFinite(c.doubleValue) || Float.isInfinite((float) (double) c.doubleValue)) {
                    return false; // Python's error
                }
                return number(out, Double.parseDouble(io.cdcwire.spark.FloatText.float32(c.doubleValue)));
            }
            case DebeziumWriting.DATE:
                return c.stringValue != null && dateOrInvalid(out, DebeziumTemporal.dateDays(c.stringValue));
            case DebeziumWriting.DATETIME: {
                if (c.stringValue == null) {
                    return false;
                }
                long micros = DebeziumTemporal.datetimeMicros(c.stringValue, true);
                if (micros == DebeziumTemporal.NOT_READ || micros == DebeziumTemporal.INVALID) {
                    return dateOrInvalid(out, micros);
                }
                int digits = fsp >= 0 ? fsp : DebeziumTemporal.fractionDigits(c.stringValue);
                out.append(digits <= 3 ? Math.floorDiv(micros, 1000) : micros);
                return true;
            }
            case DebeziumWriting.TIMESTAMP: {
                if (c.stringValue == null) {
                    return false;
                }
                long micros = DebeziumTemporal.datetimeMicros(c.stringValue, false);
                if (micros == DebeziumTemporal.NOT_READ) {
                    return false;
                }
                if (micros == DebeziumTemporal.INVALID || micros < DebeziumTemporal.MIN_TIMESTAMP_MICROS) {
                    out.append("\"1970-01-01T00:00:00Z\"");
                    return true;
                }
                out.append('"');
                DebeziumTemporal.zonedText(out, micros, fsp >= 0 ? fsp : DebeziumTemporal.fractionDigits(c.stringValue));
                out.append('"');
                return true;
            }
            case DebeziumWriting.TIME: {
                long micros = c.stringValue == null ? DebeziumTemporal.NOT_READ : DebeziumTemporal.timeMicros(c.stringValue);
                if (micros == DebeziumTemporal.NOT_READ || micros == DebeziumTemporal.INVALID) {
                    return false; // Python's: an error for a time it cannot read
                }
                out.append(micros);
                return true;
            }
            case DebeziumWriting.BIT:
                return bit(out, c.number());
            case DebeziumWriting.ENUM:
            case DebeziumWriting.SET:
                return element(out, c.number());
            default:
                return false;
        }
    }

    /** A date's number, or for an invalid one null in a nullable column and 0 in a NOT NULL one. */
    private boolean dateOrInvalid(StringBuilder out, long number) {
        if (number == DebeziumTemporal.NOT_READ) {
            return false;
        }
        if (number == DebeziumTemporal.INVALID) {
            out.append(optional ? "null" : "0");
        } else {
            out.append(number);
        }
        return true;
    }

    /** BIT(1) as a boolean, wider as base64 of its little-endian bytes, (width + 7) / 8 of them. */
    private boolean bit(StringBuilder out, BigInteger n) {
        if (n == null || n.signum() < 0 || n.compareTo(U64_LIMIT) >= 0) {
            return false; // Python's error
        }
        if (bitLength == 1) {
            out.append(n.signum() != 0 ? "true" : "false");
            return true;
        }
        long bits = n.longValue();
        byte[] raw = new byte[(bitLength + 7) / 8];
        for (int i = 0; i < raw.length; i++) {
            raw[i] = (byte) (bits >>> (8 * i));
        }
        out.append('"').append(Base64.getEncoder().encodeToString(raw)).append('"');
        return true;
    }

    /** ENUM: the element of a 1-based index; SET: the members of a mask joined by commas; "" out of range. */
    private boolean element(StringBuilder out, BigInteger n) {
        if (n == null) {
            return false;
        }
        if (rule == DebeziumWriting.ENUM) {
            if (n.signum() > 0 && n.compareTo(BigInteger.valueOf(elements.length)) <= 0) {
                out.append(elements[n.intValue() - 1]);
            } else {
                out.append("\"\"");
            }
            return true;
        }
        if (n.shiftRight(elements.length).signum() != 0) {
            out.append("\"\"");
            return true;
        }
        out.append('"');
        boolean first = true;
        for (int i = 0; i < elements.length; i++) {
            if (n.testBit(i)) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                String json = elements[i];
                out.append(json, 1, json.length() - 1); // the element's escaped text, without its quotes
            }
        }
        out.append('"');
        return true;
    }

    /** A finite double as orjson writes it; false for one JSON has no number for (Python's error). */
    private static boolean number(StringBuilder out, double x) {
        if (!Double.isFinite(x)) {
            return false;
        }
        out.append(JsonFloat.of(x));
        return true;
    }
}
