package io.cdcwire.debezium;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.CheckTables;
import io.cdcwire.spark.ConfigText;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the debezium encoder is made with, read from the JSON text the plugin's glue builds
 * ({@code cdcwire_debezium.jvm_writing.encoder_config}): per type name and flags the value rule
 * and field schema text probed from the installed Python encoder, the texts it fills in (made by
 * the encoder's own functions, with placeholders), the options and the record checks' tables.
 */
final class DebeziumWriting {
    static final int SAME = 0, U64 = 1, BASE64 = 2, DOUBLE = 3, DECIMAL = 4, FLOAT32 = 5, DATE = 6, TIME = 7,
            DATETIME = 8, TIMESTAMP = 9, BIT = 10, ENUM = 11, SET = 12;
    private static final List<String> RULES = List.of("same", "u64", "base64", "double", "decimal", "float32",
            "date", "time", "datetime", "timestamp", "bit", "enum", "set");

    /** A column type's value rule and its field schema up to its name: one text, or where the schema
     * depends on the type text, one per variant (each null where the type has no such variant). */
    static final class Field {
        final int rule;
        final String schema; // the one text, or the default variant (DATETIME fsp <= 3, FLOAT, BIT(1))
        final String micro; // DATETIME of fsp > 3
        final String scaled; // FLOAT with a scale
        final Template bits; // BIT wider than 1: its length in place
        final Template allowed; // ENUM, SET: its allowed parameter in place

        Field(JsonNode node, String lengthMark, String allowedMark) {
            rule = ConfigText.named(node.get("rule"), RULES, "value rule");
            schema = text(node, "schema");
            micro = text(node, "micro");
            scaled = text(node, "scaled");
            bits = node.has("bits") ? new Template(node.get("bits").asText(), lengthMark) : null;
            allowed = node.has("allowed") ? new Template(node.get("allowed").asText(), allowedMark) : null;
        }

        private static String text(JsonNode node, String name) {
            return node.has(name) ? node.get(name).asText() : null;
        }
    }

    /** A text with places to fill: its literal pieces and, between them, which value goes there. */
    static final class Template {
        private final List<String> pieces = new ArrayList<>();
        private final List<Integer> slots = new ArrayList<>();

        /** {@code text} with every occurrence of each of {@code marks} a place for value i. */
        Template(String text, String... marks) {
            int at = 0;
            while (true) {
                int next = -1, which = -1;
                for (int i = 0; i < marks.length; i++) {
                    int found = text.indexOf(marks[i], at);
                    if (found >= 0 && (next < 0 || found < next)) {
                        next = found;
                        which = i;
                    }
                }
                if (next < 0) {
                    pieces.add(text.substring(at));
                    return;
                }
                pieces.add(text.substring(at, next));
                slots.add(which);
                at = next + marks[which].length();
            }
        }

        void fill(StringBuilder out, String... values) {
            for (int i = 0; i < slots.size(); i++) {
                out.append(pieces.get(i)).append(values[slots.get(i)]);
            }
            out.append(pieces.get(pieces.size() - 1));
        }
    }

    final Map<String, Field[]> fields = new HashMap<>();
    final int[] flagBits;
    final Template source;
    final Template keySchema;
    final Template valueSchema;
    /** The watermark's key and value (the ts, its milliseconds and the clock in place), or null: Python's. */
    final String watermarkKey;
    final Template watermarkValue;
    /** The DDL messages' texts, or null: every DDL is Python's. */
    final DebeziumDdl ddl;
    final String cluster;
    final boolean disableSchema;
    final boolean outputOldValue;
    final long maxMessageBytes;
    final int overhead;
    final CheckTables checks;

    DebeziumWriting(String text) {
        JsonNode root = ConfigText.root(text);
        checks = new CheckTables(root);
        JsonNode marks = root.get("placeholders");
        String lengthMark = marks.get("length").asText(), allowedMark = marks.get("allowed").asText();
        root.get("fields").fields().forEachRemaining(e -> {
            JsonNode combos = e.getValue();
            Field[] byFlags = new Field[combos.size()];
            for (int i = 0; i < byFlags.length; i++) {
                byFlags[i] = combos.get(i).isNull() ? null : new Field(combos.get(i), lengthMark, allowedMark);
            }
            fields.put(e.getKey(), byFlags);
        });
        JsonNode bits = root.get("flag_bits");
        flagBits = new int[bits.size()];
        for (int i = 0; i < flagBits.length; i++) {
            flagBits[i] = bits.get(i).asInt();
        }
        JsonNode texts = root.get("templates");
        source = new Template(texts.get("source").asText(), marks.get("db").asText(), marks.get("table").asText(),
                root.get("probe_ts").asText(), root.get("probe_ms").asText());
        keySchema = new Template(texts.get("key_schema").asText(), marks.get("prefix").asText(),
                marks.get("fields").asText());
        valueSchema = new Template(texts.get("value_schema").asText(), marks.get("prefix").asText(),
                marks.get("fields").asText());
        JsonNode mark = root.get("watermark");
        watermarkKey = mark == null || mark.isNull() ? null : mark.get("key").asText();
        watermarkValue = watermarkKey == null ? null : new Template(mark.get("value").asText(),
                marks.get("ts").asText(), marks.get("ms").asText(), marks.get("now").asText());
        JsonNode ddlTexts = root.get("ddl");
        ddl = ddlTexts == null || ddlTexts.isNull() ? null
                : new DebeziumDdl(ddlTexts, marks);
        cluster = root.get("cluster").asText();
        disableSchema = root.get("disable_schema").asBoolean();
        outputOldValue = root.get("output_old_value").asBoolean();
        maxMessageBytes = root.get("max_message_bytes").asLong();
        overhead = root.get("overhead").asInt();
    }

    /** The field of a column of this type and flags, or null where Java has no rule for it. */
    Field field(String type, int flags) {
        Field[] byFlags = fields.get(type);
        if (byFlags == null) {
            return null;
        }
        int combo = 0;
        for (int i = 0; i < flagBits.length; i++) {
            if ((flags & flagBits[i]) != 0) {
                combo |= 1 << i;
            }
        }
        return byFlags[combo];
    }
}
