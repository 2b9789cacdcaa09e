package io.cdcwire.spark;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.Dependency;
import org.apache.spark.OneToOneDependency;
import org.apache.spark.Partition;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

/**
 * A JVM-tier read's events, with the Python pass run only in a task that meets a pending message.
 *
 * <p>Why: the decoding tier's Python pass is an Arrow UDF, and Spark starts a Python worker for
 * every partition such a UDF runs over, even one where it has nothing to do. Over a source that
 * reads the same rows again when asked (the JVM's {@code file://} source: the same ranges of the
 * same files), a task can first run the Java pass alone ({@code first}: no Python), give each
 * event Java read, and only at the first pending row switch to the same pass with the Python
 * column ({@code both}: the first pass and the Python UDF), skip the rows it already gave, and go
 * on as {@link DecodedInPlace} does. A clean partition costs no Python worker; one with a pending
 * message reads its prefix twice in Java (cheap beside a Python decode), and keeps its order.
 */
public final class PythonWhenPending extends RDD<InternalRow> {
    private static final long serialVersionUID = 1L;

    private final RDD<InternalRow> first;
    private final RDD<InternalRow> both;
    private final StructType firstSchema, bothSchema, output;
    private final Partition[] bothParts; // taken on the driver: a task's copy of an RDD cannot plan its partitions

    public PythonWhenPending(RDD<InternalRow> first, RDD<InternalRow> both, StructType firstSchema,
            StructType bothSchema, StructType output) {
        super(first.context(), CollectionConverters.asScala(List.<Dependency<?>>of(
                new OneToOneDependency<>(first), new OneToOneDependency<>(both))).toSeq(),
                ClassTag$.MODULE$.apply(InternalRow.class));
        if (first.partitions().length != both.partitions().length) {
            throw new IllegalArgumentException("the two passes are not partitioned alike");
        }
        this.first = first;
        this.both = both;
        this.bothParts = both.partitions();
        this.firstSchema = firstSchema;
        this.bothSchema = bothSchema;
        this.output = output;
    }

    @Override
    public Partition[] getPartitions() {
        return first.partitions();
    }

    @Override
    public scala.collection.Iterator<InternalRow> compute(Partition split, TaskContext context) {
        int pending = firstSchema.fieldIndex("_cdc_pending");
        UntilPending clean = new UntilPending(CollectionConverters.asJava(first.iterator(split, context)), pending);
        Iterator<InternalRow> own = new DecodedInPlace(firstSchema, output).call(clean);
        return CollectionConverters.asScala(new Iterator<InternalRow>() {
            private Iterator<InternalRow> rest; // the Python pass's rows, from the first pending message

            @Override
            public boolean hasNext() {
                if (rest == null && own.hasNext()) {
                    return true;
                }
                if (rest == null && clean.pendingMet) {
                    Iterator<InternalRow> all = CollectionConverters.asJava(
                            both.iterator(bothParts[split.index()], context));
                    for (long i = 0; i < clean.taken; i++) { // given already, from the first pass alone
                        if (!all.hasNext()) {
                            throw new IllegalStateException("the messages gave fewer rows the second time they were read");
                        }
                        all.next();
                    }
                    rest = new DecodedInPlace(bothSchema, output).call(all);
                }
                return rest != null && rest.hasNext();
            }

            @Override
            public InternalRow next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return rest == null ? own.next() : rest.next();
            }
        });
    }

    /** The first pass's rows up to its first pending one; how many it gave, and whether it met one. */
    private static final class UntilPending implements Iterator<InternalRow> {
        private final Iterator<InternalRow> rows;
        private final int pending;
        private InternalRow peeked;
        long taken;
        boolean pendingMet;

        UntilPending(Iterator<InternalRow> rows, int pending) {
            this.rows = rows;
            this.pending = pending;
        }

        @Override
        public boolean hasNext() {
            if (peeked == null && !pendingMet && rows.hasNext()) {
                InternalRow row = rows.next();
                if (row.getBoolean(pending)) {
                    pendingMet = true;
                } else {
                    peeked = row;
                }
            }
            return peeked != null;
        }

        @Override
        public InternalRow next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            InternalRow row = peeked;
            peeked = null;
            taken++;
            return row;
        }
    }
}
