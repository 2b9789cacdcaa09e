package io.cdcwire.open;

import io.cdcwire.spark.BatchEncoder;
import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.JsonText;
import io.cdcwire.spark.RecordChecks;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;

/**
 * open-protocol's {@link BatchEncoder}: row events share a message until it holds
 * {@code max-batch-size} rows or the next row would take it past {@code max-message-bytes};
 * resolved and DDL events travel alone, closing the open batch. The same rules, in
 * the same order, as {@code cdcwire_open.encoder.OpenProtocolEncoder._batched}: key = u64 version
 * then per event [u64 length, key JSON], value = per event [u64 length, value JSON]; the images
 * sent as {@code row_images.sent_images} sends them. A row Java is not sure of (the record checks,
 * a text, only-output-updated-columns' old image, one over the limit on its own) is refused with its open batch: Python encodes them and the events after,
 * until a DDL or resolved event empties its batch.
 */
public final class OpenBatchEncoder implements BatchEncoder {
    /** The key's event type of a DDL ({@code event_text.DDL}). */
    private static final int DDL = 2;
    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private final OpenWriting cfg;
    private final RecordChecks checks;
    private final ArrayDeque<Message> closed = new ArrayDeque<>();
    private ByteArrayOutputStream key;
    private ByteArrayOutputStream value;
    private int rows;

    public OpenBatchEncoder(String configText) {
        cfg = new OpenWriting(configText);
        checks = new RecordChecks(cfg.checks);
    }

    @Override
    public void start(String topic, int partition) {
        key = null;
        value = null;
        rows = 0;
    }

    @Override
    public boolean watermark(BigDecimal commitTs, long now) {
        BigInteger ts = commitTs.toBigInteger();
        if (commitTs.signum() < 0 || ts.compareTo(U64_MAX) > 0) {
            return false;
        }
        byte[] k = ("{\"ts\":" + ts + ",\"t\":3}").getBytes(StandardCharsets.UTF_8);
        if (cost(k.length, 0) > cfg.maxMessageBytes) {
            return false; // Python's error
        }
        alone(k, new byte[0]);
        return true;
    }

    @Override
    public boolean row(String kind, BigDecimal commitTs, String schema, String table, Long tableId,
                       List<ColumnEntry> columns, List<ColumnEntry> preColumns, Boolean handleKeyOnly, byte half,
                       long now) {
        if (!checks.plainRow(kind, commitTs, schema, table, columns, preColumns, handleKeyOnly)) {
            return false; // checked as the event came (both images of a split update)
        }
        if (half == 1) {
            kind = "delete";
            columns = null;
        } else if (half == 2) {
            kind = "insert";
            preColumns = null;
        }
        if (columns == null) { // a delete: every column, or its handle-key columns only
            if (cfg.deleteOnlyHandleKey || !cfg.oldValue) {
                preColumns = handleKeys(preColumns);
                if (preColumns.isEmpty()) {
                    return false; // Python's error: an empty image
                }
            }
        } else if (preColumns != null) { // an update: without old values, its new image alone
            if (!cfg.oldValue) {
                preColumns = null;
            } else if (cfg.onlyUpdatedColumns) {
                return false; // the changed old columns: Python's
            }
        }
        byte[] k = OpenRowText.key(commitTs.toBigInteger(), schema, table, tableId);
        byte[] v = k == null ? null : OpenRowText.value(cfg, columns, preColumns);
        if (v == null || cost(k.length, v.length) > cfg.maxMessageBytes) {
            return false; // over the limit alone: Python's large-message handling or error
        }
        if (key != null && (rows >= cfg.maxBatchSize
                || (long) key.size() + value.size() + cfg.overhead + k.length + v.length + cfg.framing > cfg.maxMessageBytes)) {
            close();
        }
        if (key == null) {
            key = new ByteArrayOutputStream(k.length + 64);
            value = new ByteArrayOutputStream(v.length + 64);
            u64(key, cfg.version);
        }
        u64(key, k.length);
        key.write(k, 0, k.length);
        u64(value, v.length);
        value.write(v, 0, v.length);
        rows++;
        return true;
    }

    @Override
    public boolean leave(String kind) {
        if (!"ddl".equals(kind)) {
            return false;
        }
        close(); // Python's encoder closes its batch before a DDL event, which travels alone
        return true;
    }

    @Override
    public boolean encodesDdl() {
        return true; // a DDL travels alone after the open batch closes, as a resolved event does
    }

    /**
     * The DDL's message ({@code EventText.ddl_key} / {@code ddl_value}, alone), closing the open
     * batch first. Why Java makes it: a DDL left to Python split the task's Java-staged run in two,
     * so every partition a DDL reached had its later messages staged as a piece for the Python stage
     * to copy, and its row crossed to a Python worker. Anything unusual stays Python's, bytes or
     * error: a type not named exactly as a DDLType, a null name or query, a text JSON cannot quote
     * as Python does, a ts outside u64, a message over max-message-bytes.
     */
    @Override
    public boolean ddl(BigDecimal commitTs, String schema, String table, String ddlType, String query, long now) {
        Integer type = ddlType == null ? null : cfg.ddlTypes.get(ddlType);
        BigInteger ts = commitTs.toBigInteger();
        if (type == null || schema == null || table == null || query == null || commitTs.signum() < 0
                || ts.compareTo(U64_MAX) > 0) {
            return false;
        }
        StringBuilder text = new StringBuilder(query.length() + 32).append("{\"q\":");
        if (!JsonText.append(text, query)) {
            return false;
        }
        byte[] k = OpenRowText.key(ts, schema, table, null, DDL);
        if (k == null) {
            return false;
        }
        byte[] v = GoText.htmlEscaped(text.append(",\"t\":").append(type).append('}')).getBytes(StandardCharsets.UTF_8);
        if (cost(k.length, v.length) > cfg.maxMessageBytes) {
            return false; // Python's error
        }
        alone(k, v);
        return true;
    }

    @Override
    public boolean resumes(String kind) {
        return "ddl".equals(kind) || "resolved".equals(kind);
    }

    @Override
    public void finish() {
        close();
    }

    @Override
    public Message poll() {
        return closed.poll();
    }

    /** The handle-key columns of an image ({@code row_images.handle_key_only}). */
    private List<ColumnEntry> handleKeys(List<ColumnEntry> image) {
        List<ColumnEntry> kept = new java.util.ArrayList<>();
        for (ColumnEntry c : image) {
            if ((c.flags & cfg.handleKeyFlag) != 0) {
                kept.add(c);
            }
        }
        return kept;
    }

    /** What a message of one event counts against max-message-bytes ({@code single_event_cost}). */
    private long cost(int keyLength, int valueLength) {
        return (long) keyLength + valueLength + cfg.framing + 8 + cfg.overhead;
    }

    /** After the open batch closes, a message of one event that travels alone ({@code single_message}). */
    private void alone(byte[] k, byte[] v) {
        close();
        ByteArrayOutputStream mk = new ByteArrayOutputStream(k.length + 16);
        ByteArrayOutputStream mv = new ByteArrayOutputStream(v.length + 8);
        u64(mk, cfg.version);
        u64(mk, k.length);
        mk.write(k, 0, k.length);
        u64(mv, v.length);
        mv.write(v, 0, v.length);
        closed.add(new Message(mk.toByteArray(), mv.toByteArray(), 1));
    }

    private void close() {
        if (key != null) {
            closed.add(new Message(key.toByteArray(), value.toByteArray(), rows));
            key = null;
            value = null;
            rows = 0;
        }
    }

    private static void u64(ByteArrayOutputStream out, long v) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            out.write((int) (v >>> shift) & 0xFF);
        }
    }
}
