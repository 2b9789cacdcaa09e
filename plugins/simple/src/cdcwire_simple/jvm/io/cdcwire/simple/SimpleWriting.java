package io.cdcwire.simple;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.CheckTables;
import io.cdcwire.spark.ConfigText;
import java.util.List;
import java.util.Map;

/**
 * What the simple encoder is made with, read from the JSON text of
 * {@code cdcwire_simple.jvm_writing.encoder_config}: each column type's writing (probed from the
 * installed Python encoder), the column flags' values, the sink's options (max-message-bytes, the
 * BOOTSTRAP schedule, the time zone), each DDL type's message type and the record checks' tables
 * the core adds at its root.
 */
final class SimpleWriting {
    /** {@code json_values.writer_of}'s writers, by the names the glue gives them. */
    static final int INT = 0, FLOAT32 = 1, DOUBLE = 2, BASE64 = 3, TEXT = 4, TIMESTAMP = 5;
    private static final List<String> RULES = List.of("int", "float32", "double", "base64", "text", "timestamp");

    /** How a column of one type is written [without, with the binary flag]. */
    static final class TypeWriting {
        final String[] names = new String[2]; // TiDB's type name; null: none (Python's error)
        final String[][] charsets = new String[2][];
        final int[] rules = new int[2]; // -1: no writer here
        final Long timeBase; // the types whose number is an fsp: their length without one
        final boolean decimal;
        final boolean takesNumber;
        final boolean elements;
        final long[] defaultLength; // [signed, unsigned], null: none

        TypeWriting(JsonNode node) {
            for (int b = 0; b < 2; b++) {
                JsonNode n = node.get("names").get(b);
                names[b] = n.isNull() ? null : n.asText();
                JsonNode c = node.get("charsets").get(b);
                charsets[b] = new String[] {c.get(0).asText(), c.get(1).asText()};
                JsonNode r = node.get("rules").get(b);
                rules[b] = r.isNull() ? -1 : ConfigText.named(r, RULES, "value writer");
            }
            JsonNode t = node.get("time_base");
            timeBase = t == null || t.isNull() ? null : t.asLong();
            decimal = node.get("decimal").asBoolean();
            takesNumber = node.get("takes_number").asBoolean();
            elements = node.get("elements").asBoolean();
            JsonNode d = node.get("default_length");
            defaultLength = d == null || d.isNull() ? null : new long[] {d.get(0).asLong(), d.get(1).asLong()};
        }
    }

    final Map<String, TypeWriting> types;
    final int binary, nullable, primaryKey, handleKey, unsigned;
    final String timeZone;
    final long maxMessageBytes;
    final int overhead;
    final boolean resends; // SimpleOptions.resends_bootstrap
    final long bootstrapMsgCount;
    final long bootstrapIntervalMs;
    final boolean toAllPartitions;
    final Map<String, String> ddlKinds; // DDLType name -> the message's type (ddl_kinds.ddl_kind)
    final CheckTables checks;

    SimpleWriting(String text) {
        JsonNode root = ConfigText.root(text);
        checks = new CheckTables(root);
        types = ConfigText.table(root.get("types"), TypeWriting::new);
        JsonNode flags = root.get("flags");
        binary = flags.get("BINARY").asInt();
        nullable = flags.get("NULLABLE").asInt();
        primaryKey = flags.get("PRIMARY_KEY").asInt();
        handleKey = flags.get("HANDLE_KEY").asInt();
        unsigned = flags.get("UNSIGNED").asInt();
        timeZone = root.get("time_zone").asText();
        maxMessageBytes = root.get("max_message_bytes").asLong();
        overhead = root.get("overhead").asInt();
        resends = root.get("resends").asBoolean();
        bootstrapMsgCount = root.get("bootstrap_msg_count").asLong();
        bootstrapIntervalMs = root.get("bootstrap_interval_ms").asLong();
        toAllPartitions = root.get("to_all_partitions").asBoolean();
        ddlKinds = ConfigText.table(root.get("ddl_kinds"), JsonNode::asText);
    }
}
