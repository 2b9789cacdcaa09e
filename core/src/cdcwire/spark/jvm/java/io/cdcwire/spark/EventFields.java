package io.cdcwire.spark;

import java.io.Serializable;
import java.math.BigDecimal;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Where a routed, sorted event row keeps each field the encoding passes read ({@link MessageEncoding},
 * {@link BatchEncoding}), found once per pass from the rows' schema, and the readers of those fields.
 * Why one class: both passes hand an encoder the same event, read the same way.
 */
final class EventFields implements Serializable {
    private static final long serialVersionUID = 1L;

    final int kind, commitTs, schema, table, tableId, columns, preColumns, keyOnly, half, counts, ddlType, query;
    /** Every field's type, in order: what {@link InternalRow#get} needs to copy a row's fields. */
    final DataType[] types;
    private final DecimalType tsType;
    /** The task's column names and types, decoded once (made in the task: not serialized). */
    private transient RepeatedTexts texts;

    EventFields(StructType input) {
        kind = input.fieldIndex("kind");
        commitTs = input.fieldIndex("commit_ts");
        schema = input.fieldIndex("schema");
        table = input.fieldIndex("table");
        tableId = input.fieldIndex("table_id");
        columns = input.fieldIndex("columns");
        preColumns = input.fieldIndex("pre_columns");
        keyOnly = input.fieldIndex("handle_key_only");
        half = input.fieldIndex("_cdc_half");
        counts = input.fieldIndex("_cdc_counts");
        ddlType = input.fieldIndex("ddl_type");
        query = input.fieldIndex("query");
        StructField[] fields = input.fields();
        types = new DataType[fields.length];
        for (int i = 0; i < fields.length; i++) {
            types[i] = fields[i].dataType();
        }
        tsType = (DecimalType) types[commitTs];
    }

    /** A string field's text, or null. */
    static String text(InternalRow row, int field) {
        return row.isNullAt(field) ? null : row.getUTF8String(field).toString();
    }

    /** The event's commit ts (not null: the caller checked). */
    BigDecimal commitTs(InternalRow row) {
        return row.getDecimal(commitTs, tsType.precision(), tsType.scale()).toJavaBigDecimal();
    }

    /** A row change handed to a one-message-a-row encoder: its message value, or null. */
    byte[] encodeRow(MessageEncoder encoder, String kind, InternalRow row, long now) {
        return encoder.row(kind, commitTs(row), text(row, schema), text(row, table),
                image(row, columns), image(row, preColumns), keyOnly(row), half(row), now);
    }

    /** A row change offered to a batch encoder: whether it took it. */
    boolean offerRow(BatchEncoder encoder, String kind, InternalRow row, long now) {
        return encoder.row(kind, commitTs(row), text(row, schema), text(row, table),
                row.isNullAt(tableId) ? null : row.getLong(tableId),
                image(row, columns), image(row, preColumns), keyOnly(row), half(row), now);
    }

    /** A DDL event offered to a batch encoder that encodes them: whether it took it. A DDL row with an
     * image is not offered: the record checks' problem, which the Python encoding stage reports. */
    boolean offerDdl(BatchEncoder encoder, InternalRow row, long now) {
        if (!row.isNullAt(columns) || !row.isNullAt(preColumns)) {
            return false;
        }
        return encoder.ddl(commitTs(row), text(row, schema), text(row, table), text(row, ddlType), text(row, query), now);
    }

    private java.util.List<ColumnEntry> image(InternalRow row, int field) {
        if (texts == null) {
            texts = new RepeatedTexts();
        }
        return ColumnEntry.image(row, field, row.isNullAt(table) ? new RepeatedTexts.Slots()
                : texts.of(row.getUTF8String(table)));
    }

    private Boolean keyOnly(InternalRow row) {
        return row.isNullAt(keyOnly) ? null : row.getBoolean(keyOnly);
    }

    private byte half(InternalRow row) {
        return row.isNullAt(half) ? 0 : row.getByte(half);
    }
}
