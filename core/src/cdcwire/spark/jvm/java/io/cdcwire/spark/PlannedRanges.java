package io.cdcwire.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.TaskCompletionListener;

/**
 * The message rows of a task's planned ranges (each a JSON text the driver planned), read one
 * range after the other by a transport's source in the JVM ({@link FramedFiles}, {@link KafkaRecords}):
 * the shell they share, so each keeps only how it reads one range. A range left unread when the
 * task ends (a limit, a failure) is closed with the task.
 */
final class PlannedRanges {
    /** One planned range being read. */
    interface Range {
        /** Adds the range's next rows to {@code ready}; false when it is done (nothing more added). */
        boolean step(ArrayDeque<InternalRow> ready) throws IOException;

        void close();
    }

    /** How a source opens a range from its plan. */
    interface Opener {
        Range open(JsonNode plan) throws IOException;
    }

    private PlannedRanges() {}

    static Iterator<InternalRow> rows(Iterator<String> ranges, Opener opener) {
        ObjectMapper json = new ObjectMapper();
        ArrayDeque<InternalRow> ready = new ArrayDeque<>();
        Range[] open = new Range[1]; // the range being read, closed with the task if it is left unread
        TaskContext task = TaskContext.get();
        if (task != null) {
            task.addTaskCompletionListener((TaskCompletionListener) done -> {
                if (open[0] != null) {
                    open[0].close();
                }
            });
        }
        return new Iterator<InternalRow>() {
            @Override
            public boolean hasNext() {
                try {
                    while (ready.isEmpty()) {
                        if (open[0] == null) {
                            if (!ranges.hasNext()) {
                                return false;
                            }
                            open[0] = opener.open(json.readTree(ranges.next()));
                        }
                        if (!open[0].step(ready)) {
                            open[0].close();
                            open[0] = null;
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return true;
            }

            @Override
            public InternalRow next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return ready.poll();
            }
        };
    }

    /** The row a source gives where it stops: the rest of the range, from offset {@code from} to
     * {@code end}, is the Python reader's (no key or value). */
    static InternalRow rest(UTF8String topic, int partition, long from, long end) {
        return new GenericInternalRow(new Object[] {topic, partition, from, null, null, end});
    }
}
