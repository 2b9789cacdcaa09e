package io.cdcwire.avro;

import com.fasterxml.jackson.databind.JsonNode;
import io.cdcwire.spark.CheckTables;
import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.ConfigText;
import io.cdcwire.spark.MessageDecoder;
import io.cdcwire.spark.RecordChecks;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.util.Utf8;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * avro's decoder in the JVM tier: a row message in Confluent framing (magic byte 0, 4-byte
 * schema id, Avro binary) for key and value, read with Apache Avro's Java reader against the
 * registry's schemas the driver fetched, into the events the Python decoder gives.
 *
 * <p>It reads only what it is sure of: both schema ids known and read by the Python rules (the
 * driver's field tables), the whole body read with nothing after it, every value one its rule
 * reads alike, and the record checks passed. Everything else (no key, an unknown id, a
 * {@code _tidb_op} other than c or u, trailing bytes, a value not sure) is left pending to the
 * Python decoder, whose errors are the ones a user sees.
 */
public final class AvroDecoder implements MessageDecoder {
    private static final UTF8String INSERT = UTF8String.fromString("insert");
    private static final UTF8String UPDATE = UTF8String.fromString("update");
    private static final UTF8String DELETE = UTF8String.fromString("delete");
    private static final int HEADER = 5;

    /** A registered record schema ready to read: Avro's reader and the field table. */
    private static final class Writer {
        final GenericDatumReader<Object> reader;
        final String schema;
        final String table;
        final boolean extension;
        final AvroField[] fields;
        final Set<String> names = new HashSet<>();

        Writer(Schema parsed, JsonNode table) {
            reader = new GenericDatumReader<>(parsed);
            schema = table.get("schema").asText();
            this.table = table.get("table").asText();
            extension = table.get("extension").asBoolean();
            JsonNode fs = table.get("fields");
            fields = new AvroField[fs.size()];
            for (int i = 0; i < fields.length; i++) {
                fields[i] = new AvroField(fs.get(i));
                names.add(fields[i].name);
            }
        }
    }

    private final Map<Long, Writer> writers = new HashMap<>();
    private final RecordChecks checks;
    private BinaryDecoder reuse;

    /** Made in each task by the core's {@code MessageDecoding} with the configuration text. */
    public AvroDecoder(String configText) {
        JsonNode root = ConfigText.root(configText);
        checks = new RecordChecks(new CheckTables(root));
        JsonNode schemas = root.get("schemas");
        JsonNode tables = root.get("fields");
        for (Iterator<String> it = tables.fieldNames(); it.hasNext(); ) {
            String id = it.next();
            JsonNode text = schemas.get(id);
            if (text == null) {
                continue;
            }
            Schema parsed;
            try {
                parsed = new Schema.Parser().parse(text.asText());
            } catch (RuntimeException e) {
                continue; // Avro's Java parser is stricter than fastavro: Python reads that id
            }
            writers.put(Long.parseLong(id), new Writer(parsed, tables.get(id)));
        }
    }

    @Override
    public Object[] read(byte[] key, byte[] value) {
        if (key == null) {
            return null;
        }
        Writer keyWriter = writerOf(key);
        GenericRecord keyRecord = keyWriter == null ? null : record(keyWriter, key);
        if (keyRecord == null) {
            return null;
        }
        List<ColumnEntry> keyEntries = new ArrayList<>(keyWriter.fields.length);
        Object[] keyColumns = image(keyWriter.fields, keyRecord, null, keyEntries);
        if (keyColumns == null) {
            return null;
        }
        if (value == null) {
            return row(DELETE, BigDecimal.ZERO, keyWriter.schema, keyWriter.table, null, null, keyColumns, keyEntries);
        }
        Writer valueWriter = writerOf(value);
        GenericRecord valueRecord = valueWriter == null ? null : record(valueWriter, value);
        if (valueRecord == null) {
            return null;
        }
        List<ColumnEntry> entries = new ArrayList<>(valueWriter.fields.length);
        Object[] columns = image(valueWriter.fields, valueRecord, keyWriter.names, entries);
        if (columns == null) {
            return null;
        }
        if (!valueWriter.extension) {
            return row(INSERT, BigDecimal.ZERO, valueWriter.schema, valueWriter.table, columns, entries, null, null);
        }
        Object op = valueRecord.get("_tidb_op");
        Object ts = valueRecord.get("_tidb_commit_ts");
        if (!(op instanceof Utf8) || !(ts instanceof Long)) {
            return null;
        }
        BigDecimal commitTs = BigDecimal.valueOf((Long) ts);
        switch (op.toString()) {
            case "c":
                return row(INSERT, commitTs, valueWriter.schema, valueWriter.table, columns, entries, null, null);
            case "u":
                return row(UPDATE, commitTs, valueWriter.schema, valueWriter.table, columns, entries, keyColumns,
                        keyEntries);
            default:
                return null; // the Python decoder's refusal
        }
    }

    /** The writer of a framed part's schema id, or null: not framed, or an id Java does not read. */
    private Writer writerOf(byte[] part) {
        if (part.length < HEADER || part[0] != 0) {
            return null;
        }
        long id = ((part[1] & 0xFFL) << 24) | ((part[2] & 0xFFL) << 16) | ((part[3] & 0xFFL) << 8) | (part[4] & 0xFFL);
        return writers.get(id);
    }

    /** The part's whole body read as its writer's record, or null (cut short, bytes after it). */
    private GenericRecord record(Writer writer, byte[] part) {
        try {
            reuse = DecoderFactory.get().binaryDecoder(part, HEADER, part.length - HEADER, reuse);
            Object read = writer.reader.read(null, new WholeVarints(reuse, part.length - HEADER));
            return read instanceof GenericRecord && reuse.isEnd() ? (GenericRecord) read : null;
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /** An image's column structs in the schema's order, each entry added to {@code entries};
     * a field the key names gets its key flags (all do where {@code keyNames} is null: the key). */
    private static Object[] image(AvroField[] fields, GenericRecord record, Set<String> keyNames,
                                  List<ColumnEntry> entries) {
        Object[] out = new Object[fields.length];
        for (int i = 0; i < fields.length; i++) {
            AvroField f = fields[i];
            AvroField.Value v = f.value(record.get(f.name));
            if (v == null) {
                return null;
            }
            int flags = keyNames == null || keyNames.contains(f.name) ? f.keyFlags : f.flags;
            entries.add(ColumnEntry.decoded(f.name, f.type, flags, v.integer, v.unsigned, v.number, v.text, v.bytes,
                    f.mysqlType));
            out[i] = ColumnEntry.sparkColumn(f.name8, f.type8, flags,
                    v.integer, v.unsigned, v.number, v.text, v.bytes, f.mysqlType8);
        }
        return out;
    }

    private Object[] row(UTF8String kind, BigDecimal ts, String schema, String table, Object[] news,
                         List<ColumnEntry> newEntries, Object[] olds, List<ColumnEntry> oldEntries) {
        if (!checks.plainRow(kind.toString(), ts, schema, table, newEntries, oldEntries, false)) {
            return null;
        }
        Object[] out = new Object[EVENT_FIELDS];
        out[KIND] = kind;
        out[COMMIT_TS] = Decimal.apply(ts, 20, 0);
        out[SCHEMA] = UTF8String.fromString(schema);
        out[TABLE] = UTF8String.fromString(table);
        out[COLUMNS] = news == null ? null : new GenericArrayData(news);
        out[PRE_COLUMNS] = olds == null ? null : new GenericArrayData(olds);
        out[KEY_ONLY] = false;
        return out;
    }
}
