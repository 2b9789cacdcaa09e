package io.cdcwire.spark;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The {@code kafka://} transport's message source in the JVM: each element of the partition is
 * one message range the driver planned (JSON: {@code topic}, {@code partition}, {@code start} and
 * {@code stop}, the offsets the Python reader would read now, {@code end}, the range's end,
 * {@code host} and {@code port} of the partition's leader the driver found, {@code timeout} in
 * milliseconds, {@code client}; {@code python}, the whole range is Python's), fetched from the
 * leader into the rows {@link FramedFiles} gives: {@code topic}, {@code partition}, {@code offset},
 * {@code key}, {@code value}, {@code _cdc_rest_end} (null).
 *
 * <p>Why a rest row: at anything it is not sure of (the leader cannot be reached, the broker
 * answers an error code, a batch is irregular, aborted transactions in the answer, no progress)
 * it stops and gives one row with {@code offset} the first offset not given and
 * {@code _cdc_rest_end} the range's end, which the decoding tier's Python pass reads with the
 * Python reader: every error, skip and wait stays its own.
 */
public final class KafkaRecords implements FlatMapFunction<Iterator<String>, InternalRow> {
    private static final long serialVersionUID = 1L;
    private static final int MAX_BYTES = 4 << 20;
    private static final int MAX_WAIT_MS = 100;

    @Override
    public Iterator<InternalRow> call(Iterator<String> ranges) {
        return PlannedRanges.rows(ranges, Range::new);
    }

    /** One range's fetches. */
    private static final class Range implements PlannedRanges.Range {
        private final UTF8String topic;
        private final String name;
        private final int partition;
        private final long stop, end;
        private final JsonNode plan;
        private long offset;
        private boolean python;
        private KafkaWire wire;
        private long idleSince = -1;

        Range(JsonNode r) {
            plan = r;
            name = r.get("topic").asText();
            topic = UTF8String.fromString(name);
            partition = r.get("partition").asInt();
            offset = r.get("start").asLong();
            stop = r.get("stop").asLong();
            end = r.get("end").asLong();
            python = r.get("python").asBoolean();
        }

        /** Adds the next rows to {@code ready}; false when the range is done. */
        @Override
        public boolean step(ArrayDeque<InternalRow> ready) {
            if (python) {
                ready.add(rest(offset));
                python = false;
                offset = stop;
                return false;
            }
            if (offset >= stop) {
                return false;
            }
            int timeout = plan.get("timeout").asInt();
            try {
                if (wire == null) {
                    wire = new KafkaWire(plan.get("host").asText(), plan.get("port").asInt(), timeout,
                            plan.get("client").asText());
                }
                KafkaWire.Fetched got = wire.fetch(name, partition, offset, MAX_BYTES, MAX_WAIT_MS);
                if (got.error != 0 || got.aborted > 0) {
                    return stopped(ready);
                }
                List<KafkaRecordBatches.Record> records = new ArrayList<>();
                long next = got.records == null ? offset : KafkaRecordBatches.decode(got.records, offset, records);
                for (KafkaRecordBatches.Record r : records) {
                    if (r.offset >= stop) {
                        offset = stop;
                        return false;
                    }
                    ready.add(new GenericInternalRow(new Object[] {topic, partition, r.offset, r.key, r.value, null}));
                }
                if (next < 0) {
                    offset = -1 - next;
                    return stopped(ready);
                }
                if (next > offset) {
                    offset = next;
                    idleSince = -1;
                } else if (got.lastStable >= 0 && got.lastStable <= offset) {
                    return false; // nothing more is readable: where the consumer meets the partition's end
                } else if (idleSince < 0) {
                    idleSince = System.currentTimeMillis();
                } else if (System.currentTimeMillis() - idleSince > timeout) {
                    return stopped(ready); // no progress: the Python reader waits and says so
                }
                return offset < stop;
            } catch (IOException | RuntimeException e) {
                return stopped(ready);
            }
        }

        private boolean stopped(ArrayDeque<InternalRow> ready) {
            ready.add(rest(offset));
            offset = stop;
            return false;
        }

        private InternalRow rest(long from) {
            return PlannedRanges.rest(topic, partition, from, end);
        }

        @Override
        public void close() {
            if (wire != null) {
                wire.close();
                wire = null;
            }
        }
    }
}
