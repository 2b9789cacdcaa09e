package io.cdcwire.debezium;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.CheckTables;
import io.cdcwire.spark.ConfigText;
import java.util.List;
import java.util.Map;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * What the debezium decoder is made with, read from the JSON text the plugin's glue builds
 * ({@code cdcwire_debezium.jvm_reading.decoder_config}): the reading table, probed from the
 * installed Python decoder, and the record checks' tables the core adds at its root.
 */
final class DebeziumConfig {
    /** {@code decode_value}'s rules, by the names the glue gives them. */
    static final int INT = 0, U64 = 1, FLOAT32 = 2, DOUBLE = 3, DECIMAL = 4, TEXT = 5, BASE64 = 6, BIT = 7,
            ENUM = 8, SET = 9, DATE = 10, DATETIME = 11, TIMESTAMP = 12, TIME = 13;
    private static final List<String> RULES = List.of("int", "u64", "float32", "double", "decimal", "text",
            "base64", "bit", "enum", "set", "date", "datetime", "timestamp", "time");

    /** How the decoder reads a field of one {@code tidb_type} text. */
    static final class Reading {
        final int rule;
        final UTF8String typeText; // the type code read back, by name
        final String type;
        final int[] flags; // [not optional, optional]
        final int[] keyFlags; // the same, of a column the key names

        Reading(JsonNode node) {
            rule = ConfigText.named(node.get("rule"), RULES, "value rule");
            type = node.get("type").asText();
            typeText = UTF8String.fromString(type);
            flags = new int[] {node.get("flags").get(0).asInt(), node.get("flags").get(1).asInt()};
            keyFlags = new int[] {node.get("key_flags").get(0).asInt(), node.get("key_flags").get(1).asInt()};
        }
    }

    final Map<String, Reading> readings;
    final CheckTables checks;

    DebeziumConfig(String text) {
        JsonNode root = ConfigText.root(text);
        checks = new CheckTables(root);
        readings = ConfigText.table(root.get("readings"), Reading::new);
    }
}
