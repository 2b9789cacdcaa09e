package io.cdcwire.canaljson;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.JsonBytes;
import io.cdcwire.spark.MessageDecoder;
import io.cdcwire.spark.RecordChecks;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One canal-json message read into the event row, for the messages it is sure of: the row
 * messages (INSERT, UPDATE, DELETE) whose images name {@code mysqlType}'s columns in order, of
 * type texts the installed Python decoder was probed for ({@link CanalJsonConfig.Reading}), whose
 * values read and whose event the record checks certainly pass; and {@code TIDB_WATERMARK}
 * messages. {@link #read} gives null for every other message: DDL, a claim-check pointer, a
 * handle-key-only row, an old TiCDC's {@code "old":[null]}, and anything malformed. The Python
 * decoder then reads it, in its place, and words what is wrong with it: Java never refuses a
 * message itself, so the error a reader sees is always the Python decoder's.
 *
 * <p>The rules are {@code cdcwire_canal_json.decoder}'s, taken where they are sure to agree: the
 * bytes strict UTF-8 (Jackson would read a BOM, UTF-16 or an overlong sequence that Python
 * refuses), one JSON object with no top-level key twice and nothing after it (a key twice in
 * an image or in {@code mysqlType} makes an image of a name twice, which the record checks
 * refuse; in {@code _tidb} the last one counts, as in Python's dict), every required field
 * present, {@code id} and {@code ts} 64-bit integers and each {@code sqlType} a 32-bit one (the reference's
 * Go types), {@code es} below 2^46, {@code _tidb} an object
 * or null, the commit ts its {@code commitTs} or {@code es << 18} as the extension allows.
 */
public final class CanalJsonDecoder implements MessageDecoder {
    private static final JsonFactory JSON = new JsonFactory();
    private static final String[] REQUIRED = {
        "id", "database", "table", "pkNames", "isDdl", "type", "es", "ts", "sql", "sqlType", "mysqlType", "old", "data",
    };
    private static final BigInteger U64_LIMIT = BigInteger.ONE.shiftLeft(64);
    private static final BigInteger I64_MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final long ES_LIMIT = 1L << 46;
    private static final Pattern FLOAT_TEXT =
            Pattern.compile("[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?|NaN|[+-]Inf");
    private static final UTF8String INSERT = UTF8String.fromString("insert");
    private static final UTF8String UPDATE = UTF8String.fromString("update");
    private static final UTF8String DELETE = UTF8String.fromString("delete");
    private static final UTF8String RESOLVED = UTF8String.fromString("resolved");

    private final CanalJsonConfig config;
    private final RecordChecks checks;

    /** Made in each task by {@link MessageDecoding} with the configuration text (see {@link CanalJsonConfig}). */
    public CanalJsonDecoder(String configText) {
        this.config = new CanalJsonConfig(configText);
        this.checks = new RecordChecks(config.checks);
    }

    /** What one message's fields said, as read (nothing checked across fields yet). */
    private static final class Message {
        final Set<String> seen = new HashSet<>();
        boolean idInt, tsInt, isDdl, isDdlBool, tidbObject = true;
        long es = -1;
        String type, database, table;
        List<String> pkNames; // null: JSON null
        boolean pkNamesOk = true;
        List<String> sqlTypeNames; // null: not an object of integers
        List<String> mysqlNames, mysqlTexts; // null: not an object of strings
        Image data, old;
        boolean oldNull;
        BigInteger commitTs, watermarkTs;
        boolean tidbSeen, tidbRefused; // _tidb present; a field this tier leaves to Python
        boolean surrogates; // a text may hold a surrogate: each text used is looked at
    }

    /** The one object of {@code data} or {@code old}: names and texts (null: JSON null). */
    private static final class Image {
        final List<String> names = new ArrayList<>();
        final List<String> texts = new ArrayList<>();
    }

    /** Thrown inside {@link #parse} for a message left to Python; never leaves this class. */
    private static final class NotSure extends Exception {
        private static final long serialVersionUID = 1L;
        static final NotSure IT = new NotSure();

        private NotSure() {
            super(null, null, false, false);
        }
    }

    /** The event row's fields ({@link #EVENT_FIELDS} values) of a message, or null: Python reads it. */
    @Override
    public Object[] read(byte[] value) {
        if (value == null || !JsonBytes.plainStart(value) || !JsonBytes.strictUtf8(value)) {
            return null;
        }
        Message m = new Message();
        m.surrogates = JsonBytes.maySurrogate(value);
        try (JsonParser p = JSON.createParser(value)) {
            parse(p, m);
        } catch (IOException | RuntimeException | NotSure e) {
            return null;
        }
        for (String name : REQUIRED) {
            if (!m.seen.contains(name)) {
                return null;
            }
        }
        if (!m.idInt || !m.tsInt || m.es < 0 || m.es >= ES_LIMIT || !m.isDdlBool || m.type == null || !m.tidbObject
                || m.isDdl || m.tidbRefused) {
            return null;
        }
        if (m.type.equals("TIDB_WATERMARK")) {
            return m.watermarkTs == null ? null : resolved(m.watermarkTs);
        }
        UTF8String kind = m.type.equals("INSERT") ? INSERT
                : m.type.equals("UPDATE") ? UPDATE : m.type.equals("DELETE") ? DELETE : null;
        if (kind == null) {
            return null;
        }
        BigInteger ts;
        if (m.commitTs != null) {
            ts = m.commitTs;
        } else if (m.tidbSeen && config.extension) {
            return null; // the decoder refuses a _tidb without commitTs under the extension
        } else {
            ts = BigInteger.valueOf(m.es << 18);
        }
        return row(m, kind, ts);
    }

    private Object[] row(Message m, UTF8String kind, BigInteger ts) {
        if (m.database == null || m.table == null || !m.pkNamesOk || m.mysqlNames == null || m.sqlTypeNames == null
                || m.data == null || !sameNames(m.sqlTypeNames, m.mysqlNames)) {
            return null;
        }
        int n = m.mysqlNames.size();
        CanalJsonConfig.Reading[] readings = new CanalJsonConfig.Reading[n];
        for (int i = 0; i < n; i++) {
            readings[i] = config.readings.get(m.mysqlTexts.get(i));
            if (readings[i] == null) {
                return null;
            }
        }
        List<ColumnEntry> news;
        List<ColumnEntry> olds;
        if (kind == UPDATE) {
            if (m.old == null) {
                return null;
            }
            news = image(m, m.data, readings);
            olds = image(m, m.old, readings);
        } else {
            if (!m.oldNull) {
                return null; // an old TiCDC's "old":[null], or old repeating data: Python reads those
            }
            List<ColumnEntry> only = image(m, m.data, readings);
            news = kind == DELETE ? null : only;
            olds = kind == DELETE ? only : null;
        }
        if ((kind != DELETE && news == null) || (kind != INSERT && olds == null)) {
            return null;
        }
        BigDecimal tsDecimal = new BigDecimal(ts);
        if (!checks.plainRow(kind.toString(), tsDecimal, m.database, m.table, news, olds, false)) {
            return null;
        }
        Object[] out = new Object[EVENT_FIELDS];
        out[KIND] = kind;
        out[COMMIT_TS] = Decimal.apply(tsDecimal, 20, 0);
        out[SCHEMA] = UTF8String.fromString(m.database);
        out[TABLE] = UTF8String.fromString(m.table);
        out[COLUMNS] = news == null ? null : columns(news, readings);
        out[PRE_COLUMNS] = olds == null ? null : columns(olds, readings);
        out[KEY_ONLY] = false;
        return out;
    }

    /** {@code sqlType} names the columns of {@code mysqlType}, in any order (as Python's dict keys compare). */
    private static boolean sameNames(List<String> a, List<String> b) {
        return a.equals(b) || new HashSet<>(a).equals(new HashSet<>(b));
    }

    private static Object[] resolved(BigInteger ts) {
        Object[] out = new Object[EVENT_FIELDS];
        out[KIND] = RESOLVED;
        out[COMMIT_TS] = Decimal.apply(new BigDecimal(ts), 20, 0);
        out[KEY_ONLY] = false;
        return out;
    }

    /** An image's columns with their values read, or null when it is not the usual image (its
     * names {@code mysqlType}'s, in order) or a value does not read as the decoder reads it. */
    private static List<ColumnEntry> image(Message m, Image image, CanalJsonConfig.Reading[] readings) {
        if (!image.names.equals(m.mysqlNames)) {
            return null;
        }
        List<String> keys = m.pkNames == null ? List.of() : m.pkNames; // a key or two: a list is quickest
        List<ColumnEntry> out = new ArrayList<>(readings.length);
        for (int i = 0; i < readings.length; i++) {
            CanalJsonConfig.Reading r = readings[i];
            String name = image.names.get(i);
            String text = image.texts.get(i);
            int flags = keys.contains(name) ? r.keyFlags : r.flags;
            ColumnEntry c = text == null
                    ? ColumnEntry.decoded(name, r.type, flags, null, null, null, null, null, r.mysqlType)
                    : value(name, r, flags, text);
            if (c == null) {
                return null;
            }
            out.add(c);
        }
        return out;
    }

    /** One non-null value read as {@code column_types}' parser of its reading reads it, or null. */
    private static ColumnEntry value(String name, CanalJsonConfig.Reading r, int flags, String text) {
        switch (r.parse) {
            case CanalJsonConfig.Reading.INT: {
                BigInteger v = integer(text);
                if (v == null || v.signum() < 0 && v.bitLength() > 63 || v.compareTo(U64_LIMIT) >= 0) {
                    return null; // past what the event row holds: the Event path words it
                }
                boolean small = v.compareTo(I64_MAX) <= 0;
                return ColumnEntry.decoded(name, r.type, flags, small ? v.longValue() : null,
                        small ? null : new BigDecimal(v), null, null, null, r.mysqlType);
            }
            case CanalJsonConfig.Reading.DOUBLE:
            case CanalJsonConfig.Reading.FLOAT32: {
                Double d = number(text, r.parse == CanalJsonConfig.Reading.FLOAT32);
                return d == null ? null
                        : ColumnEntry.decoded(name, r.type, flags, null, null, d, null, null, r.mysqlType);
            }
            case CanalJsonConfig.Reading.TEXT:
                return ColumnEntry.decoded(name, r.type, flags, null, null, null, text, null, r.mysqlType);
            case CanalJsonConfig.Reading.LATIN1: {
                byte[] bytes = new byte[text.length()];
                for (int i = 0; i < bytes.length; i++) {
                    char ch = text.charAt(i);
                    if (ch > 0xFF) {
                        return null;
                    }
                    bytes[i] = (byte) ch;
                }
                return ColumnEntry.decoded(name, r.type, flags, null, null, null, null, bytes, r.mysqlType);
            }
            default:
                return null; // a NULL-type column holds only null
        }
    }

    /** {@code parse_int}: ASCII digits with an optional minus. */
    private static BigInteger integer(String text) {
        int start = text.startsWith("-") ? 1 : 0;
        if (text.length() == start || text.length() > 40) {
            return null;
        }
        for (int i = start; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch < '0' || ch > '9') {
                return null;
            }
        }
        if (text.length() < 19) {
            return BigInteger.valueOf(Long.parseLong(text));
        }
        return new BigInteger(text);
    }

    /** {@code parse_double} / {@code parse_float32}: Go's float syntax, NaN and +-Inf; a finite
     * text past the range is an error there (null here). Java's parse and float rounding are
     * IEEE round-to-nearest, as Python's {@code float} and {@code struct.pack('f')} are. */
    private static Double number(String text, boolean float32) {
        if (text.length() > 400 || !FLOAT_TEXT.matcher(text).matches()) {
            return null;
        }
        double d;
        if (text.endsWith("Inf")) {
            d = text.charAt(0) == '-' ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        } else {
            d = Double.parseDouble(text);
            if (Double.isInfinite(d)) {
                return null;
            }
        }
        if (!float32) {
            return d;
        }
        float f = (float) d;
        if (Float.isInfinite(f) && !Double.isInfinite(d)) {
            return null;
        }
        return (double) f;
    }

    private static GenericArrayData columns(List<ColumnEntry> image, CanalJsonConfig.Reading[] readings) {
        Object[] entries = new Object[image.size()];
        for (int i = 0; i < entries.length; i++) {
            ColumnEntry c = image.get(i);
            Object[] value = {
                c.intValue,
                c.uintValue == null ? null : Decimal.apply(c.uintValue, 20, 0),
                c.doubleValue,
                c.stringValue == null ? null : UTF8String.fromString(c.stringValue),
                c.binaryValue,
            };
            entries[i] = new GenericInternalRow(new Object[] {
                UTF8String.fromString(c.name),
                readings[i].typeText,
                c.flags,
                new GenericInternalRow(value),
                c.mysqlType == null ? null : UTF8String.fromString(c.mysqlType),
            });
        }
        return new GenericArrayData(entries);
    }

    // -- parsing ---------------------------------------------------------------------------

    private static void parse(JsonParser p, Message m) throws IOException, NotSure {
        need(p.nextToken() == JsonToken.START_OBJECT);
        for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            need(m.seen.add(field)); // a field twice: Python's dict keeps the last, in the first's place
            switch (field) {
                case "id":
                    m.idInt = int64(p, v);
                    break;
                case "ts":
                    m.tsInt = int64(p, v);
                    break;
                case "es":
                    if (v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
                        m.es = p.getLongValue();
                    }
                    break;
                case "isDdl":
                    m.isDdlBool = v == JsonToken.VALUE_TRUE || v == JsonToken.VALUE_FALSE;
                    m.isDdl = v == JsonToken.VALUE_TRUE;
                    break;
                case "type":
                    m.type = v == JsonToken.VALUE_STRING ? p.getText() : null;
                    break;
                case "database":
                    m.database = v == JsonToken.VALUE_STRING ? plain(m, p.getText()) : null;
                    break;
                case "table":
                    m.table = v == JsonToken.VALUE_STRING ? plain(m, p.getText()) : null;
                    break;
                case "pkNames":
                    if (v == JsonToken.START_ARRAY) {
                        m.pkNames = new ArrayList<>();
                        for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                            need(e == JsonToken.VALUE_STRING);
                            m.pkNames.add(plain(m, p.getText()));
                        }
                    } else {
                        m.pkNamesOk = v == JsonToken.VALUE_NULL;
                        p.skipChildren();
                    }
                    break;
                case "sqlType":
                    m.sqlTypeNames = null;
                    if (v == JsonToken.START_OBJECT) {
                        List<String> names = new ArrayList<>();
                        for (JsonToken e = p.nextToken(); e != JsonToken.END_OBJECT; e = p.nextToken()) {
                            names.add(p.currentName());
                            need(int32(p, p.nextToken()));
                        }
                        m.sqlTypeNames = names;
                    } else {
                        p.skipChildren();
                    }
                    break;
                case "mysqlType":
                    m.mysqlNames = null;
                    m.mysqlTexts = null;
                    if (v == JsonToken.START_OBJECT) {
                        List<String> names = new ArrayList<>();
                        List<String> texts = new ArrayList<>();
                        for (JsonToken e = p.nextToken(); e != JsonToken.END_OBJECT; e = p.nextToken()) {
                            names.add(plain(m, p.currentName()));
                            need(p.nextToken() == JsonToken.VALUE_STRING);
                            texts.add(p.getText());
                        }
                        m.mysqlNames = names;
                        m.mysqlTexts = texts;
                    } else {
                        p.skipChildren();
                    }
                    break;
                case "data":
                    m.data = v == JsonToken.VALUE_NULL ? null : image(p, v, m); // null: a watermark's
                    break;
                case "old":
                    m.oldNull = v == JsonToken.VALUE_NULL;
                    m.old = m.oldNull ? null : image(p, v, m);
                    break;
                case "_tidb":
                    tidb(p, v, m);
                    break;
                default:
                    p.skipChildren();
            }
        }
        need(p.nextToken() == null);
    }

    /** A list of one object whose values are strings or null; else NotSure. */
    private static Image image(JsonParser p, JsonToken v, Message m) throws IOException, NotSure {
        need(v == JsonToken.START_ARRAY && p.nextToken() == JsonToken.START_OBJECT);
        Image image = new Image();
        for (JsonToken e = p.nextToken(); e != JsonToken.END_OBJECT; e = p.nextToken()) {
            image.names.add(plain(m, p.currentName()));
            JsonToken value = p.nextToken();
            if (value == JsonToken.VALUE_NULL) {
                image.texts.add(null);
            } else {
                need(value == JsonToken.VALUE_STRING);
                image.texts.add(plain(m, p.getText()));
            }
        }
        need(p.nextToken() == JsonToken.END_ARRAY);
        return image;
    }

    private static void tidb(JsonParser p, JsonToken v, Message m) throws IOException, NotSure {
        if (v == JsonToken.VALUE_NULL) {
            return;
        }
        if (v != JsonToken.START_OBJECT) {
            m.tidbObject = false;
            p.skipChildren();
            return;
        }
        m.tidbSeen = true;
        for (JsonToken e = p.nextToken(); e != JsonToken.END_OBJECT; e = p.nextToken()) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            switch (name) {
                case "commitTs":
                    m.commitTs = uint64(p, value);
                    break;
                case "watermarkTs":
                    m.watermarkTs = uint64(p, value);
                    break;
                case "claimCheckLocation":
                case "onlyHandleKey":
                    m.tidbRefused = true;
                    p.skipChildren();
                    break;
                default:
                    p.skipChildren();
            }
        }
    }

    /** A JSON integer of 64 bits: the reference's {@code id} and {@code ts} (Go int64s), as Python checks them. */
    private static boolean int64(JsonParser p, JsonToken value) throws IOException {
        return value == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER;
    }

    /** A JSON integer of 32 bits: the reference's {@code sqlType} entries (Go int32s), as Python checks them. */
    private static boolean int32(JsonParser p, JsonToken value) throws IOException {
        if (!int64(p, value)) {
            return false;
        }
        long v = p.getLongValue();
        return v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
    }

    private static BigInteger uint64(JsonParser p, JsonToken value) throws IOException, NotSure {
        need(value == JsonToken.VALUE_NUMBER_INT);
        BigInteger v = p.getBigIntegerValue();
        need(v.signum() >= 0 && v.compareTo(U64_LIMIT) < 0);
        return v;
    }

    private static void need(boolean condition) throws NotSure {
        if (!condition) {
            throw NotSure.IT;
        }
    }

    /** A text with no lone surrogate (UTF-8 cannot carry one: Python refuses it); else NotSure. */
    private static String plain(Message m, String text) throws NotSure {
        need(!m.surrogates || JsonBytes.plainText(text));
        return text;
    }
}
