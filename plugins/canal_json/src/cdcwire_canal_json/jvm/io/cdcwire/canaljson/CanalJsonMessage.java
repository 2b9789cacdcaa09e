package io.cdcwire.canaljson;

import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.FloatText;
import io.cdcwire.spark.JsonText;
import io.cdcwire.spark.RecordChecks;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * canal-json's row message value of one routed event copy, byte for byte what the Python codec
 * ({@code cdcwire_canal_json.encoder}) writes, or null where the Python tier must encode it:
 * the message text that {@link CanalJsonPartitions} writes for each routed row.
 *
 * <p>It takes insert, update and delete rows that {@link RecordChecks} is sure are valid, whose
 * columns the codec writes as they are (an update's old image of the new one's shape) and
 * whose message fits max-message-bytes; it gives null for everything else.
 */
final class CanalJsonMessage {
    private static final BigInteger U64 = BigInteger.ONE.shiftLeft(64);

    private CanalJsonMessage() {
    }

    /**
     * The value of the event {@code (kind, ts, schema, table, news, olds, keyOnly)} as routed
     * ({@code half}: 1 the delete half of a key-changing update, 2 its insert half, else 0), with
     * {@code now} as its {@code ts} field (ms); null to leave it to Python.
     */
    static byte[] value(CanalJsonConfig cfg, RecordChecks checks, String kind, BigDecimal ts, String schema,
                        String table, List<ColumnEntry> news, List<ColumnEntry> olds, Boolean keyOnly, int half,
                        long now) {
        if (!checks.plainRow(kind, ts, schema, table, news, olds, keyOnly)) {
            return null; // checked as the event came (both images of a split update)
        }
        if (half == 1) {
            kind = "delete";
            news = null;
        } else if (half == 2) {
            kind = "insert";
            olds = null;
        }
        List<ColumnEntry> image = kind.equals("delete") ? olds : news;
        boolean update = kind.equals("update");
        if (update && !sameShapes(news, olds)) {
            return null;
        }
        String text = message(cfg, kind, ts.toBigInteger(), schema, table, image, update ? olds : null, now);
        if (text == null) {
            return null;
        }
        byte[] value = text.getBytes(StandardCharsets.UTF_8);
        return value.length > cfg.limit ? null : value;
    }

    /**
     * The TIDB_WATERMARK message of a resolved event at {@code ts} ({@code cdcwire_canal_json.encoder}'s
     * {@code _watermark_message}), with {@code now} as its {@code ts} field (ms); null to leave it to
     * Python: without the TiDB extension (no message) or a ts that is not an unsigned 64-bit integer
     * (Python's error).
     */
    static byte[] watermark(CanalJsonConfig cfg, BigDecimal ts, long now) {
        if (!cfg.extension || ts.signum() < 0 || ts.scale() > 0 && ts.stripTrailingZeros().scale() > 0) {
            return null;
        }
        BigInteger whole = ts.toBigInteger();
        if (whole.compareTo(U64) >= 0) {
            return null;
        }
        String text = "{\"id\":0,\"database\":\"\",\"table\":\"\",\"pkNames\":null,\"isDdl\":false,"
                + "\"type\":\"TIDB_WATERMARK\",\"es\":0,\"ts\":" + now + ",\"sql\":\"\",\"sqlType\":null,"
                + "\"mysqlType\":null,\"data\":null,\"old\":null,\"_tidb\":{\"watermarkTs\":" + whole + "}}";
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static boolean sameShapes(List<ColumnEntry> news, List<ColumnEntry> olds) {
        if (news.size() != olds.size()) {
            return false;
        }
        for (int i = 0; i < news.size(); i++) {
            if (!news.get(i).sameShape(olds.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** A column's shape as the column table keys it: its type, flags and type text. */
    private record Shape(String type, Integer flags, String mysqlType) {
    }

    /** The column table's writing of a column's shape, found once per shape in a task. */
    private static CanalJsonConfig.Writing writing(CanalJsonConfig cfg, ColumnEntry c) {
        Shape shape = new Shape(c.type, c.flags, c.mysqlType);
        CanalJsonConfig.Writing w = cfg.byShape.get(shape);
        if (w == null && !cfg.byShape.containsKey(shape)) {
            w = cfg.columns.get(columnKey(c));
            if (cfg.byShape.size() >= 4096) { // bounded: type texts may be as many as the columns
                cfg.byShape.clear();
            }
            cfg.byShape.put(shape, w);
        }
        return w;
    }

    /** The key of a column's shape in the column table ({@code jvm_writing.column_key}). */
    private static String columnKey(ColumnEntry c) {
        boolean zerofill = c.mysqlType != null && c.mysqlType.toLowerCase(java.util.Locale.ROOT).contains("zerofill");
        return c.type + ":" + (c.has(ColumnEntry.BINARY) ? 1 : 0) + (c.has(ColumnEntry.UNSIGNED) ? 1 : 0)
                + (zerofill ? 1 : 0);
    }

    /** The message text, in the reference field order; null to leave the row to Python. */
    private static String message(CanalJsonConfig cfg, String kind, BigInteger ts, String schema, String table,
                                  List<ColumnEntry> image, List<ColumnEntry> old, long now) {
        List<CanalJsonConfig.Writing> writings = new ArrayList<>(image.size());
        for (ColumnEntry c : image) {
            CanalJsonConfig.Writing w = writing(cfg, c);
            if (w == null || !writes(w, c)) {
                return null;
            }
            writings.add(w);
        }
        if (old != null) {
            for (int i = 0; i < old.size(); i++) {
                if (!writes(writings.get(i), old.get(i))) {
                    return null;
                }
            }
        }
        StringBuilder out = new StringBuilder(256 + image.size() * 48);
        out.append("{\"id\":0,\"database\":");
        if (!JsonText.append(out, schema)) {
            return null;
        }
        out.append(",\"table\":");
        if (!JsonText.append(out, table)) {
            return null;
        }
        out.append(",\"pkNames\":");
        boolean anyKey = false;
        for (ColumnEntry c : image) {
            if (c.has(ColumnEntry.PRIMARY_KEY)) {
                out.append(anyKey ? ',' : '[');
                anyKey = true;
                JsonText.append(out, c.name);
            }
        }
        out.append(anyKey ? "]" : "null");
        out.append(",\"isDdl\":false,\"type\":\"").append(kind.toUpperCase(java.util.Locale.ROOT));
        out.append("\",\"es\":").append(ts.shiftRight(18)).append(",\"ts\":").append(now);
        out.append(",\"sql\":\"\",\"sqlType\":{");
        for (int i = 0; i < image.size(); i++) {
            ColumnEntry c = image.get(i);
            CanalJsonConfig.Writing w = writings.get(i);
            if (i > 0) {
                out.append(',');
            }
            if (!JsonText.append(out, c.name)) {
                return null;
            }
            BigInteger number = c.number();
            boolean promoted = w.promotionMax != null && number != null && number.compareTo(w.promotionMax) > 0;
            out.append(':').append(promoted ? w.promotionCode : w.sqlType);
        }
        out.append("},\"mysqlType\":{");
        for (int i = 0; i < image.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            JsonText.append(out, image.get(i).name);
            out.append(':');
            if (!JsonText.append(out, writings.get(i).mysqlType)) {
                return null;
            }
        }
        out.append("},\"old\":");
        if (old == null) {
            out.append("null");
        } else if (!values(out, old, image)) {
            return null;
        }
        out.append(",\"data\":");
        if (!values(out, image, image)) {
            return null;
        }
        if (cfg.extension) {
            out.append(",\"_tidb\":{\"commitTs\":").append(ts.mod(U64)).append('}');
        }
        return out.append('}').toString();
    }

    /** Whether the codec writes this value of a column of this shape (its field is one the shape takes). */
    private static boolean writes(CanalJsonConfig.Writing w, ColumnEntry c) {
        if (c.intValue != null || c.uintValue != null) {
            return w.fields.contains("int");
        }
        if (c.doubleValue != null) {
            return w.fields.contains("double");
        }
        if (c.stringValue != null) {
            return w.fields.contains("string");
        }
        if (c.binaryValue != null) {
            return w.fields.contains("binary");
        }
        return true;
    }

    /** {@code [{"name":"text",...}]} of an image's values, the names (and FLOAT or DOUBLE) of {@code shape}. */
    private static boolean values(StringBuilder out, List<ColumnEntry> image, List<ColumnEntry> shape) {
        out.append("[{");
        for (int i = 0; i < image.size(); i++) {
            ColumnEntry c = image.get(i);
            if (i > 0) {
                out.append(',');
            }
            JsonText.append(out, c.name);
            out.append(':');
            String text = text(c, shape.get(i).type);
            if (text == null) {
                out.append("null");
            } else if (!JsonText.append(out, text)) {
                return false;
            }
        }
        out.append("}]");
        return true;
    }

    /** The value's text, null for SQL NULL ({@code cdcwire_canal_json.column_types.formatter_for}). */
    private static String text(ColumnEntry c, String type) {
        if (c.intValue != null) {
            return Long.toString(c.intValue);
        }
        if (c.uintValue != null) {
            return c.uintValue.toBigInteger().toString();
        }
        if (c.doubleValue != null) {
            return type.equals("FLOAT") ? FloatText.float32(c.doubleValue) : FloatText.float64(c.doubleValue);
        }
        if (c.stringValue != null) {
            return c.stringValue;
        }
        return c.binaryValue == null ? null : JsonText.latin1(c.binaryValue);
    }
}
