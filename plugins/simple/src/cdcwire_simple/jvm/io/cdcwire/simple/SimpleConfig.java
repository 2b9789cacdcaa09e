package io.cdcwire.simple;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.CheckTables;
import io.cdcwire.spark.ConfigText;
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
            rule = ConfigText.named(node.get("rule"), RULES, "value rule");
            form = ConfigText.named(node.get("form"), FORMS, "type text form");
            type = node.get("type").asText();
            flags = node.get("flags").asInt();
            suffixes = node.get("suffixes").asBoolean();
        }
    }

    final Map<String, Reading> readings;
    final int nullable, primaryKey, uniqueKey, multipleKey, handleKey;
    final CheckTables checks;

    SimpleConfig(String text) {
        JsonNode root = ConfigText.root(text);
        checks = new CheckTables(root);
        readings = ConfigText.table(root.get("readings"), Reading::new);
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
