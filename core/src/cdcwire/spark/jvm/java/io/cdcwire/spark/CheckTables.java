package io.cdcwire.spark;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The record checks' tables, as the core hands them to every JVM codec in its configuration
 * text ({@code cdcwire.spark.rows.record_checks.java_check_tables}, never written twice): the
 * value rules per type code, the type texts' codes and limits. {@link RecordChecks} reads them;
 * a codec makes them from the root of its configuration text.
 */
public final class CheckTables {
    /** The value rules of one type code ({@code record_checks.value_rules}). */
    static final class Rules {
        final long slo, shi, ulo, uhi;
        final boolean uintSigned, uintUnsigned;
        final double floatLimit;
        final boolean strPlain, strBinary, bytesPlain, bytesBinary;
        final Pattern form; // null: no text form

        Rules(JsonNode r, String form) {
            slo = r.get(0).asLong();
            shi = r.get(1).asLong();
            ulo = r.get(2).asLong();
            uhi = r.get(3).asLong();
            uintSigned = r.get(4).asBoolean();
            uintUnsigned = r.get(5).asBoolean();
            floatLimit = r.get(6).asDouble();
            strPlain = r.get(7).asBoolean();
            strBinary = r.get(8).asBoolean();
            bytesPlain = r.get(9).asBoolean();
            bytesBinary = r.get(10).asBoolean();
            this.form = form == null ? null : Pattern.compile(form);
        }
    }

    /** How canal-json's decoder reads a column of one {@code mysqlType} text ({@code
     * cdcwire.spark.reader.java_canal_json.reading_table}, probed from the installed decoder). */
    final Map<String, Rules> rules = new HashMap<>();
    final Map<String, Set<String>> codes = new HashMap<>();
    final Map<String, Long> lengthLimits = new HashMap<>();
    final Map<String, Long> scaleLimits = new HashMap<>();
    final Map<String, Long> elementLimits = new HashMap<>();

    /** The tables at the root of a codec's configuration text. */
    public CheckTables(JsonNode root) {
        JsonNode forms = root.get("forms");
        for (Iterator<Map.Entry<String, JsonNode>> it = root.get("rules").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode form = forms.get(e.getKey());
            rules.put(e.getKey(), new Rules(e.getValue(), form == null ? null : form.asText()));
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = root.get("codes").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Set<String> names = new HashSet<>();
            for (JsonNode n : e.getValue()) {
                names.add(n.asText());
            }
            codes.put(e.getKey(), names);
        }
        longs(root.get("length_limits"), lengthLimits);
        longs(root.get("scale_limits"), scaleLimits);
        longs(root.get("element_limits"), elementLimits);
    }

    private static void longs(JsonNode node, Map<String, Long> into) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            into.put(e.getKey(), e.getValue().asLong());
        }
    }
}
