package io.cdcwire.avro;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.CheckTables;
import io.cdcwire.spark.ConfigText;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the avro encoder is made with, read from the JSON text the plugin's glue builds
 * ({@code cdcwire_avro.jvm_writing.encoder_config}): per type name and flags the value rule, the
 * Avro type and the field's text, probed from the installed Python encoder; the record's text
 * around its fields; the registry; the options and the record checks' tables.
 */
final class AvroWriting {
    /** The value rules, by the names the glue gives them. */
    static final int SAME = 0, U64 = 1, UTEXT = 2, BIT = 3, DECIMAL = 4, ENUM = 5, SET = 6;
    private static final List<String> RULES = List.of("same", "u64", "utext", "bit", "decimal", "enum", "set");
    /** The Avro types a field may have. */
    static final int INT = 0, LONG = 1, FLOAT = 2, DOUBLE = 3, STRING = 4, BYTES = 5;
    private static final List<String> TYPES = List.of("int", "long", "float", "double", "string", "bytes");

    /** How a column of one type and flags travels: its value rule, Avro type and field text. */
    static final class Field {
        final int rule;
        final int type;
        final String text; // with @name@ (and @precision@, @scale@, @length@, @allowed@ where its kind has them)
        final String bare; // a BIT's without a type text; else null

        Field(JsonNode node) {
            rule = ConfigText.named(node.get("rule"), RULES, "value rule");
            type = ConfigText.named(node.get("type"), TYPES, "Avro type");
            text = node.get("field").asText();
            bare = node.has("bare") ? node.get("bare").asText() : null;
        }
    }

    private final Map<String, Field[]> fields;
    private final int[] flagBits;
    final String head, extensionFields, end;
    final String namespace;
    final boolean extension;
    final Set<String> extensionNames = new HashSet<>();
    final String registry, contentType, keySuffix, valueSuffix;
    final byte magic;
    final long maxMessageBytes;
    final int overhead;
    final CheckTables checks;

    AvroWriting(String text) {
        JsonNode root = ConfigText.root(text);
        checks = new CheckTables(root);
        fields = ConfigText.table(root.get("fields"), list -> {
            Field[] out = new Field[list.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = list.get(i).isNull() ? null : new Field(list.get(i));
            }
            return out;
        });
        JsonNode bits = root.get("flag_bits");
        flagBits = new int[bits.size()];
        for (int i = 0; i < flagBits.length; i++) {
            flagBits[i] = bits.get(i).asInt();
        }
        JsonNode records = root.get("records");
        head = records.get("head").asText();
        extensionFields = records.get("extension").asText();
        end = records.get("end").asText();
        namespace = root.get("namespace").asText();
        extension = root.get("extension").asBoolean();
        root.get("extension_names").forEach(n -> extensionNames.add(n.asText()));
        registry = root.get("registry").asText();
        contentType = root.get("content_type").asText();
        keySuffix = root.get("key_suffix").asText();
        valueSuffix = root.get("value_suffix").asText();
        magic = (byte) root.get("magic").asInt();
        maxMessageBytes = root.get("max_message_bytes").asLong();
        overhead = root.get("overhead").asInt();
    }

    /** The field of a column of this type and these flags, or null when Java has none. */
    Field field(String type, Integer flags) {
        Field[] byFlags = type == null || flags == null ? null : fields.get(type);
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
