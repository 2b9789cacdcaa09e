package io.cdcwire.open;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.CheckTables;
import io.cdcwire.spark.ConfigText;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * What the open-protocol decoder is made with, read from the JSON text the plugin's glue builds
 * ({@code cdcwire_open.jvm_reading.decoder_config}): the reading table and flag bits, probed
 * from the installed Python decoder, and the record checks' tables the core adds at its root.
 */
final class OpenConfig {
    /** The Python decoder's value readers ({@code column_values}), by the names the glue gives them. */
    static final int INT = 0, FLOAT32 = 1, DOUBLE = 2, TEXT = 3, QUOTED = 4, BASE64 = 5, BASE64_TEXT = 6;
    private static final List<String> RULES = List.of("int", "float32", "double", "text", "quoted", "base64",
            "base64text");

    /** How the decoder reads a column of one type code and binary flag. */
    static final class Reading {
        final int rule;
        final String type; // the ColumnType name it reads back as
        final UTF8String type8;

        Reading(JsonNode node) {
            rule = ConfigText.named(node.get("rule"), RULES, "value rule");
            type = node.get("type").asText();
            type8 = UTF8String.fromString(type);
        }
    }

    /** By type code: [without, with the binary flag]; an entry is null where Python reads it alone. */
    final Map<Integer, Reading[]> readings = new HashMap<>();
    final int binaryFlag;
    final int handleKeyFlag;
    final CheckTables checks;

    OpenConfig(String text) {
        JsonNode root = ConfigText.root(text);
        checks = new CheckTables(root);
        for (Iterator<Map.Entry<String, JsonNode>> it = root.get("readings").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Reading[] both = new Reading[2];
            for (int binary = 0; binary < 2; binary++) {
                JsonNode r = e.getValue().get(binary);
                both[binary] = r == null || r.isNull() ? null : new Reading(r);
            }
            readings.put(Integer.valueOf(e.getKey()), both);
        }
        binaryFlag = root.get("flags").get("binary").asInt();
        handleKeyFlag = root.get("flags").get("handle_key").asInt();
    }
}
