package io.cdcwire.craft;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.CheckTables;
import io.cdcwire.spark.ConfigText;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * What the craft decoder is made with, read from the JSON text the plugin's glue builds
 * ({@code cdcwire_craft.jvm_reading.decoder_config}): for each type code, the type name read
 * back and the value rule under the flag bits it depends on, probed from the installed Python
 * decoder; the flag bits a column may carry; and the record checks' tables the core adds at its root.
 */
final class CraftConfig {
    /** The Python decoder's value rules ({@code cdcwire_craft.column_values.DECODERS}), by the glue's names. */
    static final int ZIGZAG = 0, UVARINT = 1, FLOAT32 = 2, FLOAT64 = 3, UTF8 = 4, BYTES = 5, NULL = 6;
    private static final List<String> RULES = List.of("zigzag", "uvarint", "float32", "float64", "utf8", "bytes", "null");
    private static final int BINARY = 0x01, UNSIGNED = 0x80;

    /** By type code (0..255): the type name read back, null for a code Java leaves to Python. */
    final UTF8String[] typeNames = new UTF8String[256];
    final String[] typeTexts = new String[256];
    /** By type code, the rule under flags 0, BINARY, UNSIGNED, BINARY|UNSIGNED. */
    final int[][] rules = new int[256][];
    final long flagMask;
    final CheckTables checks;

    CraftConfig(String text) {
        JsonNode root = ConfigText.root(text);
        checks = new CheckTables(root);
        flagMask = root.get("flag_mask").asLong();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.get("readings").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            int code = Integer.parseInt(e.getKey());
            JsonNode given = e.getValue().get("rules");
            int[] byBits = new int[4];
            for (int i = 0; i < 4; i++) {
                byBits[i] = ConfigText.named(given.get(i), RULES, "value rule");
            }
            typeTexts[code] = e.getValue().get("type").asText();
            typeNames[code] = UTF8String.fromString(typeTexts[code]);
            rules[code] = byBits;
        }
    }

    /** The rule of a column of this type code and these flags, or -1 where Java has none. */
    int rule(long code, long flags) {
        if (code < 0 || code > 255 || rules[(int) code] == null || (flags & ~flagMask) != 0) {
            return -1;
        }
        return rules[(int) code][((flags & BINARY) != 0 ? 1 : 0) + ((flags & UNSIGNED) != 0 ? 2 : 0)];
    }
}
