package io.cdcwire.debezium;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.JsonText;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A DDL event's message as {@code cdcwire_debezium.encoder.DebeziumEncoder._ddl} writes it, from the
 * texts {@code cdcwire_debezium.jvm_ddl} made with that encoder: its key (the database name) and
 * value (the source block, the statement and {@code tableChanges}). A DDL in a Spark row carries no
 * table schema, so there is at most one change, whose {@code table} is null; a RENAME TABLE names the
 * table it renames, read from the statement as {@code ddl_messages._renamed_from} reads it.
 */
final class DebeziumDdl {
    /** How a DDL type's change list is made (probed from {@code ddl_messages.table_changes}). */
    private enum Changes { NONE, ONE, RENAMED }

    private static final class Kind {
        final String text; // the change's kind, as a JSON string
        final Changes changes;

        Kind(String text, Changes changes) {
            this.text = text;
            this.changes = changes;
        }
    }

    /** Python's {@code \s} on ASCII text: the ASCII whitespace and the separators U+001C-U+001F. */
    private static final String S = "[\\t\\n\\x0B\\f\\r \\x1C-\\x1F]";
    private static final String NAME = "(?:`((?:[^`]|``)+)`|([A-Za-z0-9_$]+))";
    /** {@code ddl_messages._RENAME}, for ASCII statements (on others Python's IGNORECASE and \s differ). */
    private static final Pattern RENAME = Pattern.compile(
            S + "*RENAME" + S + "+TABLE" + S + "+(?:" + NAME + S + "*\\." + S + "*)?" + NAME + S + "+TO" + S,
            Pattern.CASE_INSENSITIVE);

    private final Map<String, Kind> kinds = new HashMap<>();
    private final DebeziumWriting.Template key;
    private final DebeziumWriting.Template value;
    private final DebeziumWriting.Template change;

    DebeziumDdl(JsonNode node, JsonNode marks) {
        node.get("kinds").fields().forEachRemaining(e -> {
            StringBuilder kind = new StringBuilder();
            JsonText.append(kind, e.getValue().get("kind").asText());
            kinds.put(e.getKey(), new Kind(kind.toString(),
                    Changes.valueOf(e.getValue().get("changes").asText().toUpperCase(java.util.Locale.ROOT))));
        });
        JsonNode own = node.get("marks");
        String db = marks.get("db").asText(), table = marks.get("table").asText();
        key = new DebeziumWriting.Template(node.get("key").asText(), db);
        value = new DebeziumWriting.Template(node.get("value").asText(), db, table, own.get("query").asText(),
                marks.get("ts").asText(), marks.get("ms").asText(), marks.get("now").asText(),
                own.get("changes").asText());
        change = new DebeziumWriting.Template(node.get("change").asText(), own.get("kind").asText(),
                own.get("id").asText());
    }

    /**
     * The key and value texts of a DDL of this type, or null where Python writes it: a type with no
     * message (TiCDC's debezium skips it) or unknown, a null name or statement, a text JSON cannot carry.
     */
    String[] message(BigInteger ts, String schema, String table, String ddlType, String query, long now) {
        Kind kind = ddlType == null ? null : kinds.get(ddlType);
        if (kind == null || schema == null || table == null || query == null) {
            return null;
        }
        StringBuilder db = new StringBuilder(), tb = new StringBuilder(), q = new StringBuilder(query.length() + 16);
        if (!JsonText.append(db, schema) || !JsonText.append(tb, table) || !JsonText.append(q, query)) {
            return null;
        }
        String changes = "[]";
        if (!table.isEmpty() && kind.changes != Changes.NONE) {
            String ident = kind.changes == Changes.RENAMED ? renamed(query, schema) : null;
            if (kind.changes == Changes.RENAMED && ident == null) {
                return null;
            }
            ident = (ident == null ? "" : ident + ",") + quoted(schema) + "." + quoted(table);
            StringBuilder id = new StringBuilder(ident.length() + 16), c = new StringBuilder(128);
            if (!JsonText.append(id, ident)) {
                return null;
            }
            change.fill(c.append('['), kind.text, id.toString());
            changes = c.append(']').toString();
        }
        StringBuilder k = new StringBuilder(256), v = new StringBuilder(4096);
        key.fill(k, db.toString());
        value.fill(v, db.toString(), tb.toString(), q.toString(), ts.toString(), ts.shiftRight(18).toString(),
                Long.toString(now), changes);
        return new String[] {k.toString(), v.toString()};
    }

    private static String quoted(String name) {
        return "\"" + name + "\"";
    }

    /** {@code "old schema"."old table"} of a RENAME TABLE statement (an empty table where it does not
     * read as one), or null for a statement not all ASCII. */
    private static String renamed(String query, String schema) {
        for (int i = 0; i < query.length(); i++) {
            if (query.charAt(i) > 0x7F) {
                return null;
            }
        }
        Matcher m = RENAME.matcher(query);
        if (!m.lookingAt()) {
            return quoted(schema) + "." + quoted("");
        }
        String oldSchema = or(unquoted(m.group(1)), m.group(2), schema);
        String oldTable = or(unquoted(m.group(3)), m.group(4), "");
        return quoted(oldSchema) + "." + quoted(oldTable);
    }

    private static String unquoted(String name) {
        return name == null ? "" : name.replace("``", "`");
    }

    /** Python's {@code a or b or c} over texts (an empty or null text is false). */
    private static String or(String a, String b, String c) {
        return a != null && !a.isEmpty() ? a : b != null && !b.isEmpty() ? b : c;
    }
}
