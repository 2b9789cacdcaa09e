package io.cdcwire.simple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cdcwire.spark.CheckTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * What the simple decoder is made with, read from the JSON text the plugin's glue builds
 * ({@code cdcwire_simple.jvm_reading.decoder_config}): the reading table, probed from the
 * installed Python decoder, the column flags' values, and the record checks' tables.
 */
final class SimpleConfig {
    /** {@code json_values.reader_of}'s rules, by the names the glue gives them. */
    static final int INT = 0, FLOAT32 = 1, DOUBLE = 2, BASE64 = 3, TEXT = 4, TIMESTAMP = 5;
    private static final List<String> RULES = List.of("int", "float32", "double", "base64", "text", "timestamp");
    /** {@code table_schema._type_text}'s branches. */
    static final int ELEMENTS = 0, DECIMAL = 1, TIME = 2, WIDTH = 3, PLAIN = 4;
    private static final List<String> FORMS = List.of("elements", "decimal", "time", "width", "plain");

    /** How a column of one mysqlType (unsigned or not, binary charset or not) reads. */
    static final class Reading {
        final int rule;
        final String type;
        final int flags;
        final int form;
        final boolean suffixes;

        Reading(JsonNode node) {
            rule = RULES.indexOf(node.get("rule").asText());
            form = FORMS.indexOf(node.get("form").asText());
            if (rule < 0 || form < 0) {
                throw new IllegalArgumentException("no value rule or type text form " + node);
            }
            type = node.get("type").asText();
            flags = node.get("flags").asInt();
            suffixes = node.get("suffixes").asBoolean();
        }
    }

    final Map<String, Reading> readings = new HashMap<>();
    final int nullable, primaryKey, uniqueKey, multipleKey, handleKey;
    final CheckTables checks;

    SimpleConfig(String text) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        checks = new CheckTables(root);
        for (Iterator<Map.Entry<String, JsonNode>> it = root.get("readings").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            readings.put(e.getKey(), new Reading(e.getValue()));
        }
        JsonNode flags = root.get("flags");
        nullable = flags.get("NULLABLE").asInt();
        primaryKey = flags.get("PRIMARY_KEY").asInt();
        uniqueKey = flags.get("UNIQUE_KEY").asInt();
        multipleKey = flags.get("MULTIPLE_KEY").asInt();
        handleKey = flags.get("HANDLE_KEY").asInt();
    }

    /** The reading of a column, or null where the Java tier reads none (the NULL type). */
    Reading reading(String mysqlType, boolean unsigned, boolean binary) {
        return readings.get(mysqlType + "/" + (unsigned ? 1 : 0) + "/" + (binary ? 1 : 0));
    }
}
