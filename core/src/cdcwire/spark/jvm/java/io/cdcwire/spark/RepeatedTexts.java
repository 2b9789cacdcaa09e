package io.cdcwire.spark;

import java.util.Arrays;
import java.util.HashMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The texts of an image's columns that repeat row after row (column names, type names, type
 * texts), decoded from UTF-8 once per task and then given as the same {@link String}: each is
 * hashed once (Java keeps a String's hash), so the lookups the encoders and record checks make by
 * name and type cost no decoding and no rehashing.
 *
 * <p>Kept per table and column place: a row's text is compared, byte for byte, with the one its
 * table's last row had in the same place (no hashing of each text; a table whose shape changed
 * just decodes the texts that changed). Bounded: past {@link #TABLES} tables it starts over.
 */
final class RepeatedTexts {
    static final int TABLES = 4096;
    /** The repeated fields of a COLUMN struct: name, type, type text. */
    private static final int[] FIELDS = {0, 1, 4};

    private final HashMap<UTF8String, Slots> tables = new HashMap<>();

    /** The slots of a table's images (its name's bytes may lie in a row's reused buffer). */
    Slots of(UTF8String table) {
        Slots slots = tables.get(table);
        if (slots == null) {
            if (tables.size() >= TABLES) {
                tables.clear();
            }
            slots = new Slots();
            tables.put(table.copy(), slots);
        }
        return slots;
    }

    /** One table's texts as its last row had them, by column place and field. */
    static final class Slots {
        private UTF8String[] bytes = new UTF8String[0];
        private String[] texts = new String[0];

        /** The text of field {@code field} (0 name, 1 type, 4 type text) of column {@code column}. */
        String text(int column, int field, UTF8String value) {
            int at = column * FIELDS.length + (field == 4 ? 2 : field);
            if (at >= bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(at + 1, bytes.length * 2));
                texts = Arrays.copyOf(texts, bytes.length);
            }
            if (!value.equals(bytes[at])) {
                bytes[at] = value.copy();
                texts[at] = value.toString();
            }
            return texts[at];
        }
    }
}
