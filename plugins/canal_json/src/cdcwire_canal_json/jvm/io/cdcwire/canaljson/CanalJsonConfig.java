package io.cdcwire.canaljson;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.CheckTables;
import io.cdcwire.spark.ConfigText;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What one sink's canal-json encoding (or decoding: {@code readings}) needs, read from the JSON text the Python side builds
 * ({@code cdcwire.spark.writer.java_canal_json.udf_config}): the sink's options, the record
 * checks' tables (taken from the Python rules, never written twice) and canal-json's column
 * table (each column shape's {@code mysqlType}, {@code sqlType}, promotion and the value
 * fields the codec writes, as the installed Python codec writes a one-column row of it).
 */
final class CanalJsonConfig {
    /** One column shape as canal-json writes it. */
    static final class Writing {
        final String mysqlType;
        final int sqlType;
        final java.math.BigInteger promotionMax; // null: no promotion
        final int promotionCode;
        final Set<String> fields;

        Writing(JsonNode node) {
            mysqlType = node.get("mysql_type").asText();
            sqlType = node.get("sql_type").asInt();
            JsonNode promotion = node.get("promotion");
            if (promotion == null || promotion.isNull()) {
                promotionMax = null;
                promotionCode = 0;
            } else {
                promotionMax = promotion.get(0).bigIntegerValue();
                promotionCode = promotion.get(1).asInt();
            }
            fields = new HashSet<>();
            for (JsonNode f : node.get("fields")) {
                fields.add(f.asText());
            }
        }
    }

    /** The record checks' value rules of one type code ({@code record_checks.value_rules}). */
    static final class Reading {
        static final int INT = 0, DOUBLE = 1, FLOAT32 = 2, TEXT = 3, LATIN1 = 4, NOTHING = 5;

        final String type;
        final org.apache.spark.unsafe.types.UTF8String typeText;
        final int flags;
        final int keyFlags; // the flags of a column pkNames names
        final int parse;
        final String mysqlType; // what the decoded column keeps as its type text, or null

        Reading(JsonNode node) {
            type = node.get("type").asText();
            typeText = org.apache.spark.unsafe.types.UTF8String.fromString(type);
            flags = node.get("flags").asInt();
            keyFlags = node.get("key_flags").asInt();
            parse = ConfigText.named(node.get("parse"),
                    java.util.List.of("int", "double", "float32", "text", "latin1", "nothing"), "value reader");
            JsonNode kept = node.get("mysql_type");
            mysqlType = kept == null || kept.isNull() ? null : kept.asText();
        }
    }

    final boolean extension;
    final long limit;
    final CheckTables checks;
    final Map<String, Writing> columns;
    /** The writing of each column shape an encoder met, null where the table has none (CanalJsonMessage's memo). */
    final Map<Object, Writing> byShape = new java.util.HashMap<>();
    final Map<String, Reading> readings;

    CanalJsonConfig(String text) {
        JsonNode root = ConfigText.root(text);
        extension = root.get("extension").asBoolean();
        limit = root.get("limit").asLong();
        checks = new CheckTables(root);
        columns = ConfigText.table(root.get("columns"), Writing::new);
        JsonNode read = root.get("readings");
        readings = read == null ? Map.of() : ConfigText.table(read, Reading::new);
    }
}
