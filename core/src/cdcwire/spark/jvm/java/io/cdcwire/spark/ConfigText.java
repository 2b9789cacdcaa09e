package io.cdcwire.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Reading a JVM codec's configuration text (the JSON its plugin's Python glue makes, with the
 * record checks' tables at its root): the parts every codec's configuration class needs, so
 * none writes them again. A text the glue made wrong is a bug in the plugin, not in the
 * input, so it fails the task with the part named. Public API of the framework.
 */
public final class ConfigText {
    private ConfigText() {}

    /** The configuration's root object. */
    public static JsonNode root(String text) {
        try {
            return new ObjectMapper().readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The position in {@code names} of the text {@code node} holds: a rule the glue names by
     * one of the Java's names ({@code what}: the kind of name, for the error). */
    public static int named(JsonNode node, List<String> names, String what) {
        int at = node == null ? -1 : names.indexOf(node.asText());
        if (at < 0) {
            throw new IllegalArgumentException("no " + what + " " + node + " (known: " + names + ")");
        }
        return at;
    }

    /** Each field of the object {@code table}, made with {@code made}, by its name: a probed
     * readings table. */
    public static <T> Map<String, T> table(JsonNode table, Function<JsonNode, T> made) {
        Map<String, T> out = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = table.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            out.put(e.getKey(), made.apply(e.getValue()));
        }
        return out;
    }
}
