package io.cdcwire.avro;

import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.JsonText;
import io.cdcwire.spark.RecordChecks;
import io.cdcwire.spark.RowMessages;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * avro's batch encoder, a {@link RowMessages}: avro writes one message per row event, so each message
 * closes on its own row (one event): the Confluent-framed key record of the row's handle-key columns and value
 * record of its new image (none for a delete: a tombstone), as {@code cdcwire_avro.encoder.AvroEncoder}
 * writes them. A table version's schema texts are made once, from the probed field texts, and
 * registered once per executor ({@link SchemaIds}). Nothing is ever held open, so a row Java is not
 * sure of goes to Python alone: the record checks, a column without a field of Java's, a name two
 * columns share once sanitised, a schema the registry gave no id for, a message over
 * max-message-bytes. DDL and resolved events write nothing: Python's, as the encoder's own.
 */
public final class AvroBatchEncoder extends RowMessages {
    private static final int HANDLE_KEY = 0x02, NULLABLE = 0x40;
    private static final Pattern DECIMAL_TEXT =
            Pattern.compile("(?i)(?:decimal|numeric|dec|fixed)\\(([0-9]{1,2})(?:,([0-9]{1,2}))?\\)(?: [A-Za-z0-9_]+)*");
    private static final Pattern BIT_TEXT = Pattern.compile("(?i)bit\\(([0-9]{1,2})\\)(?: [A-Za-z0-9_]+)*");
    private static final Pattern ELEMENTS_TEXT = Pattern.compile("(?i)(?:enum|set)\\(('[^'\\\\]*'(?:,'[^'\\\\]*')*)\\)");
    private static final Pattern ELEMENT = Pattern.compile("'([^'\\\\]*)'");
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final int SHAPES = 1024;

    private final AvroWriting cfg;
    private final RecordChecks checks;
    private final AvroOut out = new AvroOut();
    /** The last table version seen of each table (schema NUL table) in this topic. */
    private final Map<String, Shape> shapes = new HashMap<>();
    private String topic;
    /** The registry gave no id once: every later row of the task is Python's (its client retries). */
    private boolean registryFailed;

    public AvroBatchEncoder(String configText) {
        cfg = new AvroWriting(configText);
        checks = new RecordChecks(cfg.checks);
    }

    /** One table version: each column's field and what its kind reads from the type text, the key's
     * columns, the two schema texts and, once registered, their Confluent headers. */
    private final class Shape {
        final List<ColumnEntry> columns;
        final boolean ok;
        final AvroWriting.Field[] fields;
        final int[] scales;
        final int[] precisions;
        final String[][] elements;
        final int[] keys;
        String keyText, valueText;
        byte[] keyHeader, valueHeader;

        Shape(String schema, String table, List<ColumnEntry> image) {
            columns = image;
            int n = image.size();
            fields = new AvroWriting.Field[n];
            scales = new int[n];
            precisions = new int[n];
            elements = new String[n][];
            int keyCount = 0;
            for (ColumnEntry c : image) {
                if (c.has(HANDLE_KEY)) {
                    keyCount++;
                }
            }
            keys = new int[keyCount];
            ok = keyCount > 0 && build(schema, table, image);
        }

        private boolean build(String schema, String table, List<ColumnEntry> image) {
            String record = sanitized(table);
            if (record.isEmpty()) {
                return false;
            }
            String[] texts = new String[image.size()];
            Set<String> names = new HashSet<>();
            int k = 0;
            for (int i = 0; i < image.size(); i++) {
                ColumnEntry c = image.get(i);
                AvroWriting.Field f = cfg.field(c.type, c.flags);
                String name = sanitized(c.name);
                if (f == null || name.isEmpty() || !names.add(name)) {
                    return false;
                }
                fields[i] = f;
                texts[i] = fieldText(f, c, i, name);
                if (texts[i] == null) {
                    return false;
                }
                if (c.has(HANDLE_KEY)) {
                    keys[k++] = i;
                }
            }
            if (cfg.extension) {
                for (String name : names) {
                    if (cfg.extensionNames.contains(name)) {
                        return false;
                    }
                }
            }
            String head = cfg.head.replace("@record@", record)
                    .replace("@namespace@", schema.isEmpty() ? cfg.namespace : cfg.namespace + "." + sanitized(schema));
            StringBuilder key = new StringBuilder(head);
            for (int j = 0; j < keys.length; j++) {
                key.append(j == 0 ? "" : ",").append(texts[keys[j]]);
            }
            keyText = key.append(cfg.end).toString();
            StringBuilder value = new StringBuilder(head);
            for (int j = 0; j < texts.length; j++) {
                value.append(j == 0 ? "" : ",").append(texts[j]);
            }
            if (cfg.extension) {
                value.append(texts.length == 0 ? "" : ",").append(cfg.extensionFields);
            }
            valueText = value.append(cfg.end).toString();
            return true;
        }

        /** A column's field text, its type text's numbers and elements filled in; null where Java
         * does not read the type text as the Python encoder does (or it refuses the column). */
        private String fieldText(AvroWriting.Field f, ColumnEntry c, int i, String name) {
            String text = f.text.replace("@name@", name);
            if (f.rule == AvroWriting.DECIMAL) {
                Matcher m = c.mysqlType == null ? null : DECIMAL_TEXT.matcher(c.mysqlType);
                if (m == null || !m.matches()) {
                    return null;
                }
                precisions[i] = Integer.parseInt(m.group(1));
                scales[i] = m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
                return text.replace("@precision@", Integer.toString(precisions[i]))
                        .replace("@scale@", Integer.toString(scales[i]));
            }
            if (f.rule == AvroWriting.BIT) {
                if (c.mysqlType == null || c.mysqlType.equalsIgnoreCase("bit")) {
                    return f.bare == null ? null : f.bare.replace("@name@", name);
                }
                Matcher m = BIT_TEXT.matcher(c.mysqlType);
                return m.matches() ? text.replace("@length@", Integer.toString(Integer.parseInt(m.group(1)))) : null;
            }
            if (f.rule == AvroWriting.ENUM || f.rule == AvroWriting.SET) {
                Matcher m = c.mysqlType == null ? null : ELEMENTS_TEXT.matcher(c.mysqlType);
                if (m == null || !m.matches()) {
                    return null;
                }
                List<String> found = new java.util.ArrayList<>();
                StringBuilder allowed = new StringBuilder();
                for (Matcher e = ELEMENT.matcher(m.group(1)); e.find(); ) {
                    String element = e.group(1);
                    allowed.append(found.isEmpty() ? "" : ",").append(element.replace(",", "\\,"));
                    found.add(element);
                }
                elements[i] = found.toArray(new String[0]);
                StringBuilder quoted = new StringBuilder();
                if (!JsonText.append(quoted, allowed.toString())) {
                    return null;
                }
                return text.replace("\"@allowed@\"", quoted.toString());
            }
            return text;
        }

        boolean same(List<ColumnEntry> image) {
            if (image.size() != columns.size()) {
                return false;
            }
            for (int i = 0; i < image.size(); i++) {
                if (!image.get(i).sameShape(columns.get(i))) {
                    return false;
                }
            }
            return true;
        }
    }

    /** A name as Avro allows it: each code point outside A-Z a-z 0-9 _ as '_', '_' before a leading digit
     * ({@code cdcwire_avro.names.sanitize_name}). */
    static String sanitized(String name) {
        StringBuilder out = new StringBuilder(name.length() + 1);
        name.codePoints().forEach(cp -> out.append(
                cp >= 'A' && cp <= 'Z' || cp >= 'a' && cp <= 'z' || cp >= '0' && cp <= '9' || cp == '_'
                        ? (char) cp : '_'));
        if (out.length() > 0 && out.charAt(0) >= '0' && out.charAt(0) <= '9') {
            out.insert(0, '_');
        }
        return out.toString();
    }

    @Override
    public void start(String topic, int partition) {
        super.start(topic, partition);
        if (!topic.equals(this.topic)) {
            shapes.clear(); // the subjects, and so the headers, are the topic's
            this.topic = topic;
        }
    }

    @Override
    public boolean row(String kind, BigDecimal commitTs, String schema, String table, Long tableId,
                       List<ColumnEntry> columns, List<ColumnEntry> preColumns, Boolean handleKeyOnly, byte half,
                       long now) {
        if (registryFailed || !checks.plainRow(kind, commitTs, schema, table, columns, preColumns, handleKeyOnly)) {
            return false;
        }
        if (half == 1) {
            columns = null;
        } else if (half == 2) {
            preColumns = null;
        }
        List<ColumnEntry> image = columns != null ? columns : preColumns;
        Shape shape = shape(schema, table, image);
        if (!shape.ok || !registered(shape, columns != null)) {
            return false;
        }
        BigInteger ts = commitTs.toBigInteger();
        if (ts.compareTo(LONG_MAX) > 0) {
            return false;
        }
        out.reset();
        out.raw(shape.keyHeader);
        for (int i : shape.keys) {
            if (!value(image.get(i), shape, i)) {
                return false;
            }
        }
        byte[] key = out.toBytes();
        byte[] value = null;
        if (columns != null) {
            out.reset();
            out.raw(shape.valueHeader);
            for (int i = 0; i < columns.size(); i++) {
                if (!value(columns.get(i), shape, i)) {
                    return false;
                }
            }
            if (cfg.extension) {
                out.string(preColumns == null ? "c" : "u");
                long t = ts.longValue();
                out.varint(t);
                out.varint(t >> 18);
            }
            value = out.toBytes();
        }
        if ((long) key.length + (value == null ? 0 : value.length) + cfg.overhead > cfg.maxMessageBytes) {
            return false; // Python's error
        }
        close(key, value);
        return true;
    }

    private Shape shape(String schema, String table, List<ColumnEntry> image) {
        String where = schema + '\0' + table;
        Shape shape = shapes.get(where);
        if (shape == null || !shape.same(image)) {
            if (shapes.size() >= SHAPES) {
                shapes.clear();
            }
            shape = new Shape(schema, table, image);
            shapes.put(where, shape);
        }
        return shape;
    }

    /** The key's header, and the value's where the row has a new image, registered as the Python encoder
     * registers them (the key on a table version's first row, the value on its first insert or update). */
    private boolean registered(Shape shape, boolean withValue) {
        if (shape.keyHeader == null) {
            shape.keyHeader = header(cfg.keySuffix, shape.keyText);
        }
        if (withValue && shape.keyHeader != null && shape.valueHeader == null) {
            shape.valueHeader = header(cfg.valueSuffix, shape.valueText);
        }
        if (shape.keyHeader == null || withValue && shape.valueHeader == null) {
            registryFailed = true;
            return false;
        }
        return true;
    }

    private byte[] header(String suffix, String text) {
        int id = SchemaIds.id(cfg.registry, cfg.contentType, topic + suffix, text);
        if (id < 0) {
            return null;
        }
        return new byte[] {cfg.magic, (byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8), (byte) id};
    }

    /** One column's datum (a nullable field's union branch first); false where Java is not sure of it. */
    private boolean value(ColumnEntry c, Shape shape, int i) {
        AvroWriting.Field f = shape.fields[i];
        boolean nullable = c.has(NULLABLE);
        if (c.fieldsSet == 0) {
            if (!nullable) {
                return false; // Python's error
            }
            out.varint(0);
            return true;
        }
        if (nullable) {
            out.varint(1);
        }
        switch (f.rule) {
            case AvroWriting.SAME:
                return same(c, f.type);
            case AvroWriting.U64: {
                BigInteger n = c.number();
                if (n == null || n.signum() < 0) {
                    return false;
                }
                out.varint(n.longValue()); // the int64 of its bits: 2^64-1 as -1
                return true;
            }
            case AvroWriting.UTEXT: {
                BigInteger n = c.number();
                return n != null && n.signum() >= 0 && out.string(n.toString());
            }
            case AvroWriting.BIT: {
                BigInteger n = c.number();
                if (n == null || n.signum() < 0) {
                    return false;
                }
                byte[] b = n.toByteArray(); // a sign byte first where the top bit is set: not Python's
                out.bytes(b.length > 1 && b[0] == 0 ? java.util.Arrays.copyOfRange(b, 1, b.length) : b);
                return true;
            }
            case AvroWriting.DECIMAL:
                return decimal(c.stringValue, shape.precisions[i], shape.scales[i]);
            case AvroWriting.ENUM: {
                BigInteger n = c.number();
                String[] names = shape.elements[i];
                if (n == null || n.signum() < 0 || n.compareTo(BigInteger.valueOf(names.length)) > 0) {
                    return false;
                }
                int index = n.intValue();
                return out.string(index == 0 ? "" : names[index - 1]);
            }
            case AvroWriting.SET: {
                BigInteger n = c.number();
                String[] names = shape.elements[i];
                if (n == null || n.signum() < 0 || n.bitLength() > names.length) {
                    return false;
                }
                StringBuilder text = new StringBuilder();
                for (int bit = 0; bit < names.length; bit++) {
                    if (n.testBit(bit)) {
                        text.append(text.length() == 0 && bit == n.getLowestSetBit() ? "" : ",").append(names[bit]);
                    }
                }
                return out.string(text.toString());
            }
            default:
                return false;
        }
    }

    /** A datum the encoder writes as the event holds it; only the value kind the Avro type takes. */
    private boolean same(ColumnEntry c, int type) {
        switch (type) {
            case AvroWriting.INT:
            case AvroWriting.LONG:
                if (c.intValue != null) {
                    out.varint(c.intValue);
                    return true;
                }
                if (c.uintValue != null && c.uintValue.compareTo(new BigDecimal(LONG_MAX)) <= 0) {
                    out.varint(c.uintValue.longValue());
                    return true;
                }
                return false;
            case AvroWriting.FLOAT: {
                if (c.doubleValue == null) {
                    return false;
                }
                double d = c.doubleValue;
                float f = (float) d;
                if (Float.isInfinite(f) && !Double.isInfinite(d) || Double.isNaN(d)) {
                    return false; // Python's struct refuses it
                }
                out.float32(f);
                return true;
            }
            case AvroWriting.DOUBLE:
                if (c.doubleValue == null || Double.isNaN(c.doubleValue)) {
                    return false;
                }
                out.float64(c.doubleValue);
                return true;
            case AvroWriting.STRING:
                return c.stringValue != null && out.string(c.stringValue);
            case AvroWriting.BYTES:
                if (c.binaryValue == null) {
                    return false;
                }
                out.bytes(c.binaryValue);
                return true;
            default:
                return false;
        }
    }

    /** A DECIMAL text as the unscaled two's-complement bytes of its value at the column's scale; false
     * where digits would be lost or the precision passed (Python's error). */
    private boolean decimal(String text, int precision, int scale) {
        if (text == null) {
            return false;
        }
        BigInteger unscaled;
        try {
            unscaled = new BigDecimal(text).setScale(scale).unscaledValue();
        } catch (ArithmeticException | NumberFormatException e) {
            return false;
        }
        if (unscaled.abs().compareTo(BigInteger.TEN.pow(precision)) >= 0) {
            return false;
        }
        out.bytes(unscaled.toByteArray());
        return true;
    }
}
