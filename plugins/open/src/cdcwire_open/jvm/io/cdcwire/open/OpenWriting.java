package io.cdcwire.open;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.CheckTables;
import io.cdcwire.spark.ConfigText;
import java.util.List;
import java.util.Map;

/**
 * What the open-protocol encoder is made with, read from the JSON text of
 * {@code cdcwire_open.jvm_writing.encoder_config}: the sink's batching limits, the options that say
 * which images travel, each column type's code and value rule (probed from the installed Python
 * encoder), the non-ASCII characters {@code go_quote} escapes, and the record checks' tables the core
 * adds at its root.
 */
final class OpenWriting {
    /** The Python encoder's value writers ({@code column_values}), by the names the glue gives them. */
    static final int INT = 0, FLOAT32 = 1, DOUBLE = 2, TEXT = 3, QUOTED = 4, BASE64 = 5;
    private static final List<String> RULES = List.of("int", "float32", "double", "text", "quoted", "base64");

    /** A column type's code and value rule [without, with the binary flag] (-1: Python writes its values). */
    static final class TypeWriting {
        final int code;
        final int[] rules = new int[2];

        TypeWriting(JsonNode node) {
            code = node.get("code").asInt();
            for (int binary = 0; binary < 2; binary++) {
                JsonNode r = node.get("rules").get(binary);
                rules[binary] = r == null || r.isNull() ? -1 : ConfigText.named(r, RULES, "value writer");
            }
        }
    }

    final Map<String, TypeWriting> types;
    final int binaryFlag;
    final int handleKeyFlag;
    final int maxBatchSize;
    final long maxMessageBytes;
    final int overhead; // a message's record overhead
    final int framing; // an event's two length prefixes
    final long version;
    final boolean oldValue; // enable-old-value
    final boolean onlyUpdatedColumns;
    final boolean deleteOnlyHandleKey;
    final CheckTables checks;
    /** Each DDLType name's code ({@code int(DDLType[name])}): a DDL's value holds it. */
    final Map<String, Integer> ddlTypes = new java.util.HashMap<>();
    /** The non-ASCII code points {@code go_quote} escapes: sorted, disjoint [first, last] ranges. */
    final int[] escapedFirst;
    final int[] escapedLast;

    /** Whether {@code go_quote} writes this non-ASCII code point as an escape. */
    boolean escaped(int cp) {
        int at = java.util.Arrays.binarySearch(escapedFirst, cp);
        if (at >= 0) {
            return true;
        }
        int before = -at - 2;
        return before >= 0 && cp <= escapedLast[before];
    }

    OpenWriting(String text) {
        JsonNode root = ConfigText.root(text);
        checks = new CheckTables(root);
        types = ConfigText.table(root.get("types"), TypeWriting::new);
        binaryFlag = root.get("flags").get("binary").asInt();
        handleKeyFlag = root.get("flags").get("handle_key").asInt();
        maxBatchSize = root.get("max_batch_size").asInt();
        maxMessageBytes = root.get("max_message_bytes").asLong();
        overhead = root.get("overhead").asInt();
        framing = root.get("framing").asInt();
        version = root.get("version").asLong();
        root.get("ddl_types").fields().forEachRemaining(e -> ddlTypes.put(e.getKey(), e.getValue().asInt()));
        JsonNode escaped = root.get("escaped");
        escapedFirst = new int[escaped.size()];
        escapedLast = new int[escaped.size()];
        for (int i = 0; i < escaped.size(); i++) {
            escapedFirst[i] = escaped.get(i).get(0).asInt();
            escapedLast[i] = escaped.get(i).get(1).asInt();
        }
        oldValue = root.get("old_value").asBoolean();
        onlyUpdatedColumns = root.get("only_updated_columns").asBoolean();
        deleteOnlyHandleKey = root.get("delete_only_handle_key").asBoolean();
    }
}
