package io.cdcwire.spark;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The record checks of a row event, for the rows the Java tier encodes: true only for a row the
 * Python record checks ({@code cdcwire.spark.rows.record_checks}, {@code cdcwire.model.validation})
 * certainly pass. It need not be exact: a row it is not sure of is left to Python, whose checks
 * then refuse it with their own words (or find it fine). The rules come from the Python tables
 * ({@link CheckTables}); where a rule is hard to say here it is stricter: a type text only
 * in its plain spelling ({@code int(10) unsigned}, {@code enum('a','b')}), a DECIMAL text
 * without an exponent, a JSON document without control characters, nested at most 200 deep,
 * that Jackson's strict parser reads whole. Public API of the framework: a plugin's decoder
 * checks the row it read with it, its encoder the row it is handed. Every form must match the whole text ({@code matches},
 * not {@code ^...$}, whose {@code $} lets a final line break through).
 */
public final class RecordChecks {
    static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final BigDecimal U64_MAX_DECIMAL = new BigDecimal(U64_MAX);
    private static final String WORDS = "((?: [A-Za-z0-9_]+)*)";
    private static final Pattern NUMBERS_FORM =
            Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)(?:\\(([0-9]{1,10})(?:,([0-9]{1,10}))?\\))?" + WORDS);
    private static final Pattern ELEMENTS_FORM =
            Pattern.compile("([A-Za-z]+)\\(('[^'\\\\]*'(?:,'[^'\\\\]*')*)\\)" + WORDS);
    private static final Pattern ELEMENT = Pattern.compile("'[^'\\\\]*'");
    private static final Pattern DECIMAL_FORM = Pattern.compile("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)");
    private static final Pattern DECIMAL_WHOLE = Pattern.compile("^[-+]?0*([0-9]*)");
    private static final Pattern DECIMAL_FRACTION = Pattern.compile("\\.([0-9]*)\\z");
    private static final Set<String> DECIMALS = Set.of("decimal", "numeric", "dec", "fixed");
    private static final int JSON_DEPTH = 200;
    private static final JsonFactory JSON = new JsonFactory();

    private final CheckTables config;

    /** The checks of the tables a codec read from the root of its configuration text. */
    public RecordChecks(CheckTables config) {
        this.config = config;
    }

    /** A row event (insert, update, delete) the Python record checks certainly pass. */
    public boolean plainRow(String kind, BigDecimal ts, String schema, String table, List<ColumnEntry> news,
                     List<ColumnEntry> olds, Boolean handleKeyOnly) {
        boolean imagesFit;
        if ("insert".equals(kind)) {
            imagesFit = news != null && olds == null;
        } else if ("update".equals(kind)) {
            imagesFit = news != null && olds != null;
        } else if ("delete".equals(kind)) {
            imagesFit = news == null && olds != null;
        } else {
            return false;
        }
        return imagesFit
                && ts != null && ts.signum() >= 0 && ts.compareTo(U64_MAX_DECIMAL) <= 0
                && plainName(schema) && plainName(table)
                && !Boolean.TRUE.equals(handleKeyOnly)
                && (news == null || imageOk(news))
                && (olds == null || imageOk(olds));
    }

    private static boolean plainName(String name) {
        return name != null && name.indexOf('\0') < 0;
    }

    private boolean imageOk(List<ColumnEntry> image) {
        if (image.isEmpty()) {
            return false;
        }
        Set<String> names = new HashSet<>(image.size() * 2);
        for (ColumnEntry c : image) {
            if (c == null || !entryOk(c) || !names.add(c.name)) {
                return false;
            }
        }
        return true;
    }

    private boolean entryOk(ColumnEntry c) {
        if (c.name == null || c.name.indexOf('\0') >= 0 || c.flags == null || c.flags < 0 || c.type == null
                || c.fieldsSet > 1) {
            return false;
        }
        CheckTables.Rules r = config.rules.get(c.type);
        if (r == null) {
            return false;
        }
        boolean unsigned = c.has(ColumnEntry.UNSIGNED);
        boolean binary = c.has(ColumnEntry.BINARY);
        boolean valueOk;
        if (c.intValue != null) {
            long v = c.intValue;
            valueOk = unsigned ? (v >= r.ulo && v <= r.uhi) : (v >= r.slo && v <= r.shi);
        } else if (c.uintValue != null) {
            valueOk = (unsigned ? r.uintUnsigned : r.uintSigned)
                    && c.uintValue.signum() >= 0 && c.uintValue.compareTo(U64_MAX_DECIMAL) <= 0;
        } else if (c.doubleValue != null) {
            double d = c.doubleValue;
            valueOk = !Double.isNaN(d) && Math.abs(d) <= r.floatLimit;
        } else if (c.stringValue != null) {
            valueOk = textOk(c, r, binary);
        } else if (c.binaryValue != null) {
            valueOk = binary ? r.bytesBinary : r.bytesPlain;
        } else {
            valueOk = true;
        }
        return valueOk && typeTextOk(c);
    }

    private boolean textOk(ColumnEntry c, CheckTables.Rules r, boolean binary) {
        String s = c.stringValue;
        if (!(binary ? r.strBinary : r.strPlain)) {
            return false;
        }
        if (r.form != null && !r.form.matcher(s).matches()) {
            return false;
        }
        if (c.type.equals("DECIMAL") && !DECIMAL_FORM.matcher(s).matches()) {
            return false;
        }
        return !c.type.equals("JSON") || jsonDocument(s);
    }

    /** A text Python's {@code json.loads} certainly reads as one document. */
    static boolean jsonDocument(String text) {
        int nesting = 0;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch < 0x20 || ch == '\uFEFF') {
                return false; // control characters and a BOM: left to Python
            }
            if (Character.isSurrogate(ch)) {
                if (!Character.isHighSurrogate(ch) || i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return false; // a lone surrogate is not text Python can hold as UTF-8
                }
                i++;
                continue;
            }
            if (ch == '[' || ch == '{') {
                nesting++;
            }
        }
        if (nesting > JSON_DEPTH) {
            return false;
        }
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() == null) {
                return false;
            }
            p.skipChildren();
            return p.nextToken() == null;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * What a type text says for a column of one type, read once (the same texts come with every
     * row of a table): whether the text passes whatever the value, and what it holds a value to.
     */
    private static final class TypeText {
        static final TypeText REFUSED = new TypeText(false, false, null, null, 0);

        final boolean ok;
        final boolean elements; // an enum/set text: a value is held to its element count
        final Long length;
        final Long scale;
        final long count;

        TypeText(boolean ok, boolean elements, Long length, Long scale, long count) {
            this.ok = ok;
            this.elements = elements;
            this.length = length;
            this.scale = scale;
            this.count = count;
        }
    }

    /** Type texts read so far, by type code then text; emptied past {@link #TYPE_TEXTS} (a bound, not an LRU). */
    private final java.util.HashMap<String, java.util.HashMap<String, TypeText>> typeTexts = new java.util.HashMap<>();
    private int typeTextCount;
    private static final int TYPE_TEXTS = 4096;

    private TypeText typeText(String text, String type) {
        java.util.HashMap<String, TypeText> ofType = typeTexts.computeIfAbsent(type, t -> new java.util.HashMap<>());
        TypeText known = ofType.get(text);
        if (known == null) {
            if (++typeTextCount > TYPE_TEXTS) {
                typeTexts.clear();
                typeTextCount = 1;
                ofType = typeTexts.computeIfAbsent(type, t -> new java.util.HashMap<>());
            }
            known = readTypeText(text, type);
            ofType.put(text, known);
        }
        return known;
    }

    private TypeText readTypeText(String text, String type) {
        Matcher m = NUMBERS_FORM.matcher(text);
        if (m.matches()) {
            String base = m.group(1).toLowerCase(java.util.Locale.ROOT);
            Long length = m.group(2) == null ? null : Long.valueOf(m.group(2));
            Long scale = m.group(3) == null ? null : Long.valueOf(m.group(3));
            Set<String> codes = config.codes.get(base);
            boolean ok = codes != null && codes.contains(type) && !config.elementLimits.containsKey(base)
                    && (length == null || (config.lengthLimits.containsKey(base) && length <= config.lengthLimits.get(base)))
                    && (scale == null || (config.scaleLimits.containsKey(base) && scale <= config.scaleLimits.get(base)))
                    && (length == null || !(DECIMALS.contains(base) || base.equals("bit")) || length >= 1)
                    && (scale == null || !DECIMALS.contains(base) || scale <= length);
            return new TypeText(ok, false, length, scale, 0);
        }
        Matcher e = ELEMENTS_FORM.matcher(text);
        if (!e.matches()) {
            return TypeText.REFUSED;
        }
        String base = e.group(1).toLowerCase(java.util.Locale.ROOT);
        Set<String> codes = config.codes.get(base);
        Long limit = config.elementLimits.get(base);
        long count = 0;
        for (Matcher el = ELEMENT.matcher(e.group(2)); el.find(); ) {
            count++;
        }
        boolean ok = codes != null && codes.contains(type) && limit != null && count <= limit;
        return new TypeText(ok, true, null, null, count);
    }

    /** A null type text, or a plain one of the column's type code whose bounds the value keeps. */
    private boolean typeTextOk(ColumnEntry c) {
        if (c.mysqlType == null) {
            return true;
        }
        TypeText t = typeText(c.mysqlType, c.type);
        if (!t.ok) {
            return false;
        }
        if (t.elements) {
            BigInteger number = c.number();
            if (number == null) {
                return true;
            }
            if (c.type.equals("ENUM")) {
                return number.compareTo(BigInteger.valueOf(t.count)) <= 0;
            }
            if (c.type.equals("SET")) {
                return number.compareTo(ones(t.count)) <= 0;
            }
            return true;
        }
        if (c.type.equals("BIT") && t.length != null) {
            BigInteger number = c.number();
            return number == null || number.compareTo(ones(t.length)) <= 0;
        }
        if (c.type.equals("DECIMAL") && t.length != null && c.stringValue != null) {
            Matcher w = DECIMAL_WHOLE.matcher(c.stringValue);
            Matcher f = DECIMAL_FRACTION.matcher(c.stringValue);
            int whole = w.find() ? w.group(1).length() : 0;
            int fraction = f.find() ? f.group(1).length() : 0;
            long s = t.scale == null ? 0 : t.scale;
            return whole <= t.length - s && fraction <= s;
        }
        return true;
    }

    /** 2^width - 1, at most 2^64 - 1. */
    private static BigInteger ones(long width) {
        return width >= 64 ? U64_MAX : BigInteger.ONE.shiftLeft((int) width).subtract(BigInteger.ONE);
    }
}
