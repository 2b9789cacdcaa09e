package io.cdcwire.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The routing stage over Spark's internal rows: each event in, its routed copies out, with
 * exactly the routing columns the SQL expressions of {@code cdcwire.spark.writer.jvm_routing}
 * give (that module is the statement of every rule; this class says the same in straight-line
 * code, because Spark runs those expressions' lambdas interpreted, row by row, which made
 * routing the costliest stage of a write).
 *
 * <p>Made on the driver with the route plan as JSON text ({@code jvm_routing.route_config}):
 * the topic expression's pieces, the partition rule, the DDL and resolved broadcast, the
 * planned topics' partition counts, base indexes and shuffle keys.
 */
public final class RoutedCopies implements FlatMapFunction<Iterator<InternalRow>, InternalRow> {
    private static final long serialVersionUID = 1L;
    private static final int HANDLE_KEY = 0x02;
    private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9._-]");
    private static final int EVENT_FIELDS = 10;
    /** The routes of an event without a message: one count row. */
    private static final List<Route> COUNT_ROW = java.util.Collections.singletonList(null);

    private final String configText;
    private final StructType input;
    private final StructType output;

    public RoutedCopies(String configText, StructType input, StructType output) {
        this.configText = configText;
        this.input = input;
        this.output = output;
    }

    /** One route of an event: its topic, partition (null: not placeable), sub and half. */
    private static final class Route {
        final String topic;
        final Integer partition;
        final int sub;
        final int half;

        Route(String topic, Integer partition, int sub, int half) {
            this.topic = topic;
            this.partition = partition;
            this.sub = sub;
            this.half = half;
        }
    }

    /** The plan, read once per task. */
    private static final class Plan {
        final List<String[]> pieces; // null: the default topic; else {"lit", text} | {"schema"} | {"table"}
        final String defaultTopic;
        final String rule;
        final String ddl;
        final String resolved;
        final boolean rawChanges;
        final Map<String, Integer> counts = new HashMap<>();
        final Map<String, Integer> base = new HashMap<>();
        final List<String> topics = new ArrayList<>(); // sorted, as the plan lists them
        final int[] keys;
        final String firstTopic;
        final int firstPartition;
        final String unplannedError;

        Plan(String text) {
            JsonNode root;
            try {
                root = new ObjectMapper().readTree(text);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (root.get("pieces").isNull()) {
                pieces = null;
            } else {
                pieces = new ArrayList<>();
                for (JsonNode p : root.get("pieces")) {
                    pieces.add(p.size() == 2 ? new String[] {p.get(0).asText(), p.get(1).asText()}
                            : new String[] {p.get(0).asText()});
                }
            }
            defaultTopic = root.get("default_topic").asText();
            rule = root.get("rule").asText();
            ddl = root.get("ddl").asText();
            resolved = root.get("resolved").asText();
            rawChanges = root.get("raw_changes").asBoolean();
            for (JsonNode t : root.get("topics")) {
                topics.add(t.get(0).asText());
                counts.put(t.get(0).asText(), t.get(1).asInt());
                if (!t.get(2).isNull()) {
                    base.put(t.get(0).asText(), t.get(2).asInt());
                }
            }
            JsonNode k = root.get("keys");
            keys = new int[k.size()];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = k.get(i).asInt();
            }
            firstTopic = root.get("first").get(0).asText();
            firstPartition = root.get("first").get(1).asInt();
            unplannedError = root.get("unplanned_error").asText();
        }
    }

    @Override
    public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
        Plan plan = new Plan(configText);
        DataType[] types = new DataType[EVENT_FIELDS];
        for (int i = 0; i < EVENT_FIELDS; i++) {
            types[i] = input.fields()[i].dataType();
        }
        DecimalType tsType = (DecimalType) types[1];
        int seqField = input.fieldIndex("_cdc_seq");
        UnsafeProjection unsafe = UnsafeProjection.create(output);
        Object[] values = new Object[output.fields().length];
        GenericInternalRow out = new GenericInternalRow(values);
        GenericInternalRow marker = new GenericInternalRow(new Object[] {1L, 0L, 1L, 0L, 0L});
        return new Iterator<InternalRow>() {
            private InternalRow event;
            private List<Route> pending = List.of();
            private int next;

            @Override
            public boolean hasNext() {
                while (next >= pending.size()) {
                    if (!rows.hasNext()) {
                        return false;
                    }
                    event = rows.next();
                    List<Route> routes = routes(plan, event, tsType);
                    pending = routes.isEmpty() ? COUNT_ROW : routes;
                    next = 0;
                }
                return true;
            }

            @Override
            public InternalRow next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Route r = pending.get(next++);
                for (int i = 0; i < EVENT_FIELDS; i++) {
                    values[i] = event.isNullAt(i) ? null : event.get(i, types[i]);
                }
                if (r == null) { // no message: the routing's count row, as the SQL tier's explode_outer gives it
                    put(plan.firstTopic, plan.firstPartition, 3, -1L, 0, 0, marker);
                } else {
                    String kind = event.isNullAt(0) ? null : event.getUTF8String(0).toString();
                    int rank = "ddl".equals(kind) ? 0 : "resolved".equals(kind) ? 2 : 1;
                    put(r.topic == null ? plan.firstTopic : r.topic, r.partition == null ? plan.firstPartition : r.partition,
                            rank, event.getLong(seqField), r.sub, r.half, null);
                }
                return unsafe.apply(out).copy(); // the input row's buffer is reused by its iterator
            }

            private void put(String topic, int partition, int rank, long seq, int sub, int half, InternalRow counts) {
                values[EVENT_FIELDS] = UTF8String.fromString(topic);
                values[EVENT_FIELDS + 1] = partition;
                values[EVENT_FIELDS + 2] = key(plan, topic, partition);
                values[EVENT_FIELDS + 3] = (byte) rank;
                values[EVENT_FIELDS + 4] = seq;
                values[EVENT_FIELDS + 5] = (byte) sub;
                values[EVENT_FIELDS + 6] = (byte) half;
                values[EVENT_FIELDS + 7] = counts;
            }
        };
    }

    /** The shuffle key of a topic-partition; an unplanned topic fails the task as the SQL tier's raise_error does. */
    private static int key(Plan plan, String topic, int partition) {
        Integer base = plan.base.get(topic);
        if (base == null) {
            throw new IllegalStateException("\n" + plan.unplannedError + ": an event routes to topic '" + topic
                    + "', which was not planned: the input gave other rows when the topics were planned"
                    + " (read it once, e.g. df.cache(), or from a bounded source)\n");
        }
        return plan.keys[base + partition];
    }

    private static String text(InternalRow row, int i) {
        return row.isNullAt(i) ? null : row.getUTF8String(i).toString();
    }

    /** The routes of one event ({@code _Routes.routes}). */
    static List<Route> routes(Plan plan, InternalRow event, DecimalType tsType) {
        String kind = text(event, 0);
        boolean row = "insert".equals(kind) || "update".equals(kind) || "delete".equals(kind);
        String schema = text(event, 2);
        String table = text(event, 3);
        ArrayData news = event.isNullAt(5) ? null : event.getArray(5);
        ArrayData olds = event.isNullAt(6) ? null : event.getArray(6);
        boolean unplaceable = kind == null || !(row || "ddl".equals(kind) || "resolved".equals(kind))
                || event.isNullAt(1)
                || row && (schema == null || table == null || news == null && olds == null
                        || "update".equals(kind) && (news == null || olds == null));
        if (unplaceable) {
            return List.of(new Route(plan.firstTopic, plan.firstPartition, 0, 0));
        }
        BigDecimal ts = event.getDecimal(1, tsType.precision(), tsType.scale()).toJavaBigDecimal();
        if ("ddl".equals(kind)) {
            String topic = table == null || table.isEmpty() ? plan.defaultTopic : tableTopic(plan, schema, table);
            List<Route> out = new ArrayList<>();
            broadcast(plan, topic, plan.ddl, 0, out);
            return out;
        }
        if ("resolved".equals(kind)) {
            List<Route> out = new ArrayList<>();
            int sub = 0;
            for (String topic : plan.topics) {
                broadcast(plan, topic, plan.resolved, sub, out);
                sub += plan.resolved.equals("none") ? 0 : plan.resolved.equals("first") ? 1 : plan.counts.get(topic);
            }
            return out;
        }
        String topic = tableTopic(plan, schema, table);
        Integer n = plan.counts.get(topic);
        if (!plan.rawChanges && Boolean.TRUE.equals(keyChanges(news, olds))) {
            return List.of(new Route(topic, partition(plan, schema, table, ts, olds, n), 0, 1),
                    new Route(topic, partition(plan, schema, table, ts, news, n), 1, 2));
        }
        return List.of(new Route(topic, partition(plan, schema, table, ts, news != null ? news : olds, n), 0, 0));
    }

    private static void broadcast(Plan plan, String topic, String how, int firstSub, List<Route> out) {
        if (how.equals("none")) {
            return;
        }
        Integer n = plan.counts.get(topic);
        if (how.equals("first") || n == null) { // an unplanned topic keeps one route, whose key then fails
            out.add(new Route(topic, 0, firstSub, 0));
            return;
        }
        for (int p = 0; p < n; p++) {
            out.add(new Route(topic, p, p + firstSub, 0));
        }
    }

    /** The topic expression over a table's names made safe ({@code _Routes.table_topic}). */
    static String tableTopic(Plan plan, String schema, String table) {
        if (plan.pieces == null) {
            return plan.defaultTopic;
        }
        StringBuilder out = new StringBuilder();
        for (String[] piece : plan.pieces) {
            if (piece[0].equals("lit")) {
                out.append(piece[1]);
            } else {
                String name = piece[0].equals("schema") ? schema : table;
                out.append(UNSAFE.matcher(name == null ? "" : name).replaceAll("_"));
            }
        }
        String topic = out.toString();
        return topic.equals(".") ? "_" : topic.equals("..") ? "__" : topic;
    }

    /** The partition of an image ({@code _Routes.partition}); null where the SQL expression gives null. */
    private static Integer partition(Plan plan, String schema, String table, BigDecimal ts, ArrayData image, Integer n) {
        if (n == null) {
            return null;
        }
        if (plan.rule.equals("ts")) {
            return ts.toBigInteger().mod(BigInteger.valueOf(n)).intValue();
        }
        long crc = crc32((schema + table).getBytes(StandardCharsets.UTF_8));
        if (plan.rule.equals("index-value") || plan.rule.equals("rowid")) {
            if (image == null) {
                return null;
            }
            for (int i = 0; i < image.numElements(); i++) {
                if (image.isNullAt(i)) {
                    continue; // a null entry's flags are null: the filter leaves it out
                }
                InternalRow c = image.getStruct(i, 5);
                if (c.isNullAt(2) || (c.getInt(2) & HANDLE_KEY) == 0) {
                    continue;
                }
                if (c.isNullAt(0)) {
                    return null;
                }
                byte[] name = c.getUTF8String(0).getBytes();
                byte[] value = HashText.of(c);
                byte[] both = new byte[name.length + value.length];
                System.arraycopy(name, 0, both, 0, name.length);
                System.arraycopy(value, 0, both, name.length, value.length);
                crc ^= crc32(both);
            }
        }
        return (int) Math.floorMod(crc, (long) n);
    }

    private static long crc32(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    /**
     * Whether an update changes its handle key ({@code jvm_routing._key_changes}), in SQL's
     * three values: null where a name is null (the SQL expression then takes the whole event).
     */
    static Boolean keyChanges(ArrayData news, ArrayData olds) {
        if (news == null || olds == null) {
            return false;
        }
        List<InternalRow> oldKeys = keys(olds);
        if (oldKeys.isEmpty()) {
            return false;
        }
        Boolean any = false;
        for (InternalRow c : keys(news)) {
            Boolean found = false; // exists(old keys, same name and equal value)
            for (InternalRow o : oldKeys) {
                Boolean same = and(equalNames(o, c), ValueEquality.equal(value(o), value(c)));
                if (Boolean.TRUE.equals(same)) {
                    found = true;
                    break;
                }
                if (same == null) {
                    found = null;
                }
            }
            Boolean changed = found == null ? null : !found;
            if (Boolean.TRUE.equals(changed)) {
                return true;
            }
            if (changed == null) {
                any = null;
            }
        }
        return any;
    }

    private static List<InternalRow> keys(ArrayData image) {
        List<InternalRow> out = new ArrayList<>();
        for (int i = 0; i < image.numElements(); i++) {
            if (!image.isNullAt(i)) {
                InternalRow c = image.getStruct(i, 5);
                if (!c.isNullAt(2) && (c.getInt(2) & HANDLE_KEY) != 0) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    private static Boolean equalNames(InternalRow a, InternalRow b) {
        if (a.isNullAt(0) || b.isNullAt(0)) {
            return null;
        }
        return a.getUTF8String(0).equals(b.getUTF8String(0));
    }

    private static InternalRow value(InternalRow c) {
        return c.isNullAt(3) ? null : c.getStruct(3, 5);
    }

    private static Boolean and(Boolean a, Boolean b) {
        if (Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)) {
            return false;
        }
        return a == null || b == null ? null : true;
    }
}
