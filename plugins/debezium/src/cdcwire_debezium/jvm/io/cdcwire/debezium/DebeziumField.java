package io.cdcwire.debezium;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One column field of a row's Connect schema read as {@code field_types.field_type_of_schema}
 * reads it (its {@code tidb_type} looked up in the reading table the Python glue probed from
 * the installed decoder; the BIT width, ENUM/SET elements and DATETIME precision from its
 * logical name and parameters), and its values read as {@code column_values.decode_value}
 * reads them. {@link #of} and {@link #value} give null wherever the Python decoder would refuse
 * or where this port is not sure to agree: that message is then the Python decoder's.
 */
final class DebeziumField {
    /** A value read: at most one of the event row's VALUE fields set. */
    static final class Value {
        Long integer;
        BigDecimal unsigned;
        Double number;
        String text;
        byte[] bytes;
    }

    private static final BigInteger U64 = BigInteger.ONE.shiftLeft(64);
    private static final Pattern ZONED = Pattern.compile(
            "([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]{1,6})?)Z");
    private static final Pattern BASE64 =
            Pattern.compile("(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?");
    /** Days since the epoch of 0000-01-01 and 9999-12-31: a date text of four digits. */
    private static final long FIRST_DAY = -719528, LAST_DAY = 2932896;
    private static final long MICROS_PER_DAY = 86_400_000_000L;

    final DebeziumConfig.Reading reading;
    final UTF8String typeText;
    final int flags, keyFlags;
    final String mysqlType;
    final UTF8String mysqlType8; // as the event row holds it
    private final int bitLength;
    private final List<String> elements;
    private final boolean micro; // DATETIME as io.debezium.time.MicroTimestamp

    private DebeziumField(DebeziumConfig.Reading reading, boolean optional, int bitLength, List<String> elements,
                          boolean micro) {
        this.reading = reading;
        this.typeText = reading.typeText;
        this.flags = reading.flags[optional ? 1 : 0];
        this.keyFlags = reading.keyFlags[optional ? 1 : 0];
        this.bitLength = bitLength;
        this.elements = elements;
        this.micro = micro;
        this.mysqlType = typeTextOf(reading.rule, bitLength, elements);
        this.mysqlType8 = mysqlType == null ? null : UTF8String.fromString(mysqlType);
    }

    /** The field as the Python decoder reads it, or null where it refuses it (or may). */
    static DebeziumField of(JsonNode field, DebeziumConfig config) {
        JsonNode tidbType = field.get("tidb_type");
        JsonNode optional = field.get("optional");
        JsonNode kind = field.get("type");
        JsonNode name = field.get("name");
        JsonNode params = field.get("parameters");
        if (tidbType == null || !tidbType.isTextual() || optional == null || !optional.isBoolean()
                || !textOrNull(kind) || !textOrNull(name)) {
            return null;
        }
        if (params != null && !params.isNull()) {
            if (!params.isObject()) {
                return null;
            }
            for (Iterator<JsonNode> it = params.elements(); it.hasNext(); ) {
                if (!it.next().isTextual()) {
                    return null;
                }
            }
        } else {
            params = null;
        }
        DebeziumConfig.Reading reading = config.readings.get(tidbType.textValue());
        if (reading == null) {
            return null;
        }
        int bitLength = 64;
        List<String> elements = null;
        boolean micro = false;
        switch (reading.rule) {
            case DebeziumConfig.BIT:
                if (kind != null && "boolean".equals(kind.textValue())) {
                    bitLength = 1;
                } else {
                    String length = param(params, "length");
                    if (length == null || length.isEmpty() || length.length() > 4 || !digits(length)) {
                        return null;
                    }
                    bitLength = Integer.parseInt(length);
                    if (bitLength < 2 || bitLength > 64) {
                        return null;
                    }
                }
                break;
            case DebeziumConfig.ENUM:
            case DebeziumConfig.SET: {
                String allowed = param(params, "allowed");
                if (allowed == null) {
                    return null;
                }
                elements = reading.rule == DebeziumConfig.ENUM ? splitAllowed(allowed)
                        : Arrays.asList(allowed.split(",", -1));
                break;
            }
            case DebeziumConfig.DATETIME:
                micro = name != null && "io.debezium.time.MicroTimestamp".equals(name.textValue());
                break;
            default:
                break;
        }
        return new DebeziumField(reading, optional.booleanValue(), bitLength, elements, micro);
    }

    private static boolean textOrNull(JsonNode node) {
        return node == null || node.isNull() || node.isTextual();
    }

    private static String param(JsonNode params, String name) {
        JsonNode found = params == null ? null : params.get(name);
        return found == null ? null : found.textValue();
    }

    private static boolean digits(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** {@code split_allowed}: ENUM elements joined by a comma, a comma inside one escaped. */
    private static List<String> splitAllowed(String allowed) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (int i = 0; i < allowed.length(); i++) {
            char ch = allowed.charAt(i);
            if (ch == '\\' && allowed.startsWith(",", i + 1)) {
                cur.append(',');
                i++;
            } else if (ch == ',') {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(ch);
            }
        }
        out.add(cur.toString());
        return out;
    }

    /** {@code FieldType.mysql_type}: BIT's width and ENUM/SET's elements, else null. */
    private static String typeTextOf(int rule, int bitLength, List<String> elements) {
        if (rule == DebeziumConfig.BIT) {
            return "bit(" + bitLength + ")";
        }
        if (rule != DebeziumConfig.ENUM && rule != DebeziumConfig.SET) {
            return null;
        }
        StringBuilder out = new StringBuilder(rule == DebeziumConfig.ENUM ? "enum(" : "set(");
        for (int i = 0; i < elements.size(); i++) {
            out.append(i == 0 ? "'" : ",'").append(elements.get(i).replace("'", "''")).append('\'');
        }
        return out.append(')').toString();
    }

    /** A non-null JSON value read as {@code decode_value} reads it, or null (Python's then). */
    Value value(JsonNode raw) {
        Value v = new Value();
        switch (reading.rule) {
            case DebeziumConfig.INT:
                if (!raw.isIntegralNumber() || !raw.canConvertToLong()) {
                    return null;
                }
                v.integer = raw.longValue();
                return v;
            case DebeziumConfig.U64:
                if (!raw.isIntegralNumber() || !raw.canConvertToLong()) {
                    return null;
                }
                long u = raw.longValue();
                if (u >= 0) {
                    v.integer = u;
                } else {
                    v.unsigned = new BigDecimal(BigInteger.valueOf(u).add(U64));
                }
                return v;
            case DebeziumConfig.FLOAT32: {
                Double d = number(raw);
                if (d == null) {
                    return null;
                }
                float f = (float) (double) d;
                if (Float.isInfinite(f) && !Double.isInfinite(d)) {
                    return null; // past the float32 range: refused in Python
                }
                v.number = (double) f;
                return v;
            }
            case DebeziumConfig.DOUBLE:
                v.number = number(raw);
                return v.number == null ? null : v;
            case DebeziumConfig.DECIMAL: {
                Double d = number(raw);
                if (d == null || d.isNaN() || d.isInfinite()) {
                    return null;
                }
                v.text = decimalText(d);
                return v;
            }
            case DebeziumConfig.TEXT:
                if (!raw.isTextual()) {
                    return null;
                }
                v.text = raw.textValue();
                return v;
            case DebeziumConfig.BASE64:
                v.bytes = base64(raw);
                return v.bytes == null ? null : v;
            case DebeziumConfig.BIT:
                return bit(raw, v);
            case DebeziumConfig.ENUM:
            case DebeziumConfig.SET:
                return element(raw, v);
            case DebeziumConfig.DATE: {
                if (!raw.isIntegralNumber() || !raw.canConvertToLong()) {
                    return null;
                }
                long days = raw.longValue();
                if (days < FIRST_DAY || days > LAST_DAY) {
                    return null;
                }
                int[] ymd = civil(days);
                v.text = String.format("%04d-%02d-%02d", ymd[0], ymd[1], ymd[2]);
                return v;
            }
            case DebeziumConfig.DATETIME: {
                if (!raw.isIntegralNumber() || !raw.canConvertToLong()) {
                    return null;
                }
                long n = raw.longValue();
                if (Math.abs(n) > (1L << 62) / 1000) {
                    return null;
                }
                v.text = micro ? datetimeText(n, 6) : datetimeText(n * 1000, n % 1000 != 0 ? 3 : 0);
                return v.text == null ? null : v;
            }
            case DebeziumConfig.TIMESTAMP: {
                if (!raw.isTextual()) {
                    return null;
                }
                Matcher m = ZONED.matcher(raw.textValue());
                if (!m.matches()) {
                    return null;
                }
                v.text = m.group(1) + " " + m.group(2);
                return v;
            }
            case DebeziumConfig.TIME: {
                if (!raw.isIntegralNumber() || !raw.canConvertToLong() || raw.longValue() == Long.MIN_VALUE) {
                    return null;
                }
                v.text = timeText(raw.longValue());
                return v;
            }
            default:
                return null;
        }
    }

    /** {@code _number}: an int or float JSON number (never a boolean) as a double. */
    private static Double number(JsonNode raw) {
        if (!raw.isNumber() || raw.isIntegralNumber() && !raw.canConvertToLong()) {
            return null;
        }
        return raw.isIntegralNumber() ? (double) raw.longValue() : raw.doubleValue();
    }

    /** {@code decimal_text}: {@code format(Decimal(repr(x)), "f")}. Python's repr is the
     * shortest text ({@link io.cdcwire.spark.FloatText#float64}), written with an exponent
     * below 1e-4 and from 1e16 on, which the format then writes out without a fraction ".0". */
    static String decimalText(double x) {
        String shortest = io.cdcwire.spark.FloatText.float64(x);
        double size = Math.abs(x);
        boolean exponent = size >= 1e16 || size != 0 && size < 1e-4;
        return exponent || shortest.indexOf('.') >= 0 ? shortest : shortest + ".0";
    }

    private static byte[] base64(JsonNode raw) {
        if (!raw.isTextual() || !BASE64.matcher(raw.textValue()).matches()) {
            return null;
        }
        return Base64.getDecoder().decode(raw.textValue());
    }

    private Value bit(JsonNode raw, Value v) {
        if (bitLength == 1) {
            if (!raw.isBoolean()) {
                return null;
            }
            v.integer = raw.booleanValue() ? 1L : 0L;
            return v;
        }
        byte[] bytes = base64(raw);
        if (bytes == null || bytes.length != (bitLength + 7) / 8) {
            return null;
        }
        BigInteger n = BigInteger.ZERO;
        for (int i = bytes.length - 1; i >= 0; i--) {
            n = n.shiftLeft(8).or(BigInteger.valueOf(bytes[i] & 0xFF));
        }
        if (n.bitLength() <= 63) {
            v.integer = n.longValue();
        } else {
            v.unsigned = new BigDecimal(n);
        }
        return v;
    }

    private Value element(JsonNode raw, Value v) {
        if (!raw.isTextual()) {
            return null;
        }
        String text = raw.textValue();
        if (text.isEmpty()) {
            v.integer = 0L;
            return v;
        }
        if (reading.rule == DebeziumConfig.ENUM) {
            int at = elements.indexOf(text);
            if (at < 0) {
                return null;
            }
            v.integer = (long) at + 1;
            return v;
        }
        long mask = 0;
        for (String part : text.split(",", -1)) {
            int at = elements.indexOf(part);
            if (at < 0 || at > 62) {
                return null;
            }
            mask |= 1L << at;
        }
        v.integer = mask;
        return v;
    }

    /** {@code civil_from_days} (H. Hinnant's algorithm): year, month, day. */
    static int[] civil(long z) {
        z += 719468;
        long era = Math.floorDiv(z, 146097);
        long doe = z - era * 146097;
        long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        long y = yoe + era * 400;
        long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        long mp = (5 * doy + 2) / 153;
        long d = doy - (153 * mp + 2) / 5 + 1;
        long m = mp + (mp < 10 ? 3 : -9);
        return new int[] {(int) (y + (m <= 2 ? 1 : 0)), (int) m, (int) d};
    }

    /** {@code datetime_text}: a date and time with {@code digits} fraction digits (cut), or
     * null past the years of four digits. */
    static String datetimeText(long micros, int digits) {
        long days = Math.floorDiv(micros, MICROS_PER_DAY);
        if (days < FIRST_DAY || days > LAST_DAY) {
            return null;
        }
        long rest = Math.floorMod(micros, MICROS_PER_DAY);
        int[] ymd = civil(days);
        long secs = rest / 1_000_000;
        long us = rest % 1_000_000;
        String text = String.format("%04d-%02d-%02d %02d:%02d:%02d", ymd[0], ymd[1], ymd[2],
                secs / 3600, secs % 3600 / 60, secs % 60);
        return digits == 0 ? text : text + "." + String.format("%06d", us).substring(0, digits);
    }

    /** {@code time_text}: six fraction digits when the value has a fraction, none otherwise. */
    static String timeText(long micros) {
        String sign = micros < 0 ? "-" : "";
        long size = Math.abs(micros);
        long secs = size / 1_000_000;
        long us = size % 1_000_000;
        String text = String.format("%s%02d:%02d:%02d", sign, secs / 3600, secs % 3600 / 60, secs % 60);
        return us != 0 ? text + String.format(".%06d", us) : text;
    }
}
