package io.cdcwire.spark;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF2;

/**
 * canal-json's row message value of one routed event copy, byte for byte what the Python codec
 * ({@code cdcwire_canal_json.encoder}) writes, or null where the Python tier must encode it.
 *
 * <p>Called with the struct {@code (kind, commit_ts, schema, table, columns, pre_columns,
 * handle_key_only, half)} ({@code half}: 1 the delete half of a key-changing update, 2 its
 * insert half, else 0) and the {@code ts} field in ms (null: the wall clock, read per row as
 * the Python encoder reads it per message). It takes insert, update and delete rows that
 * {@link RecordChecks} is sure are valid, whose columns the codec writes as they are (an
 * update's old image of the new one's shape) and whose message fits max-message-bytes; it
 * gives null for everything else (DDL and resolved events among them), in the row's place.
 *
 * <p>Made on the driver with the sink's configuration text ({@link CanalJsonConfig}); Spark
 * ships the instance to the executors, which read the text once.
 */
public final class CanalJsonUdf implements UDF2<Row, Long, byte[]> {
    private static final long serialVersionUID = 1L;

    private final String configText;
    private transient CanalJsonConfig config;
    private transient RecordChecks checks;

    public CanalJsonUdf(String configText) {
        this.configText = configText;
    }

    private CanalJsonConfig config() {
        if (config == null) {
            config = new CanalJsonConfig(configText);
            checks = new RecordChecks(config);
        }
        return config;
    }

    @Override
    public byte[] call(Row event, Long clock) {
        CanalJsonConfig cfg = config();
        if (event == null || event.isNullAt(0) || event.isNullAt(1)) {
            return null;
        }
        return CanalJsonMessage.value(cfg, checks, event.getString(0), event.getDecimal(1),
                event.isNullAt(2) ? null : event.getString(2),
                event.isNullAt(3) ? null : event.getString(3),
                ColumnEntry.image(event, 4), ColumnEntry.image(event, 5),
                event.isNullAt(6) ? null : event.getBoolean(6),
                event.isNullAt(7) ? 0 : ((Number) event.get(7)).intValue(),
                clock == null ? System.currentTimeMillis() : clock);
    }
}
