package io.cdcwire.canaljson;

import io.cdcwire.spark.ColumnEntry;
import io.cdcwire.spark.MessageEncoder;
import io.cdcwire.spark.RecordChecks;
import java.math.BigDecimal;
import java.util.List;

/**
 * canal-json's {@link MessageEncoder}: its row and watermark messages ({@link CanalJsonMessage}),
 * made with the configuration text of {@code cdcwire_canal_json.jvm_writing} ({@link CanalJsonConfig}).
 */
public final class CanalJsonEncoder implements MessageEncoder {
    private final CanalJsonConfig config;
    private final RecordChecks checks;

    public CanalJsonEncoder(String configText) {
        config = new CanalJsonConfig(configText);
        checks = new RecordChecks(config.checks);
    }

    @Override
    public byte[] watermark(BigDecimal commitTs, long now) {
        return CanalJsonMessage.watermark(config, commitTs, now);
    }

    @Override
    public byte[] row(String kind, BigDecimal commitTs, String schema, String table, List<ColumnEntry> columns,
                      List<ColumnEntry> preColumns, Boolean handleKeyOnly, byte half, long now) {
        return CanalJsonMessage.value(config, checks, kind, commitTs, schema, table, columns, preColumns,
                handleKeyOnly, half, now);
    }
}
