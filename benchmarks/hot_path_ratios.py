"""Today's ratios for the "Columnar hot path" issue, each against a baseline measured in the same run.

    .venv/bin/python benchmarks/hot_path_ratios.py [--events 20000] [--spark-events 100000]
        [--repeat 3] [--skip-spark] [--skip-kafka] [--master local[2]]

Every figure is a ratio of two rates (events/s, or messages/s for Kafka), best of --repeat
runs each, both measured in this process; > 1 means cdcwire is faster than its baseline.
Codec rows use the 10-column OLTP workload (benchmarks/oltp_workload.py, --events events)
through the checked paths users get (cdcwire.encode, codec_calls.decoder_for; validation on).

Rows:
  1. Spark write, per protocol P (open-protocol, canal-json with the TiDB extension, craft):
     cs.write(df, "file://DIR/t?protocol=P&partition-num=6") / df.repartition(6, "schema",
     "table").sortWithinPartitions("commit_ts").write.json(DIR2), on the same cached DataFrame
     of a generated workload (cdcwire.workload.Workload, --spark-events events).
  2. Spark write: the same cs.write / plain df.write.json (no shuffle).
  3. Spark read: cs.read(spark, craft sink URI) materialized with the noop format /
     spark.read.json of the same events written as JSON Lines (by row 2's baseline; schema given,
     inferred untimed), materialized the same way. Both rates count the source events: cs.read
     returns more rows (resolved and DDL events copied to every partition, split updates).
  4. canal-json decode (checked decoder) / orjson.loads of the same message values.
  5. open-protocol decode / orjson.loads of the key and value JSON documents in its frames.
  6. open-protocol and canal-json encode (cdcwire.encode) / orjson.dumps of the documents they
     carry (the produced messages decoded to dicts with orjson, then dumped).
  7. avro encode / confluent_kafka AvroSerializer of the same key + value records; avro decode /
     AvroDeserializer of the same messages; avro encode / fastavro.schemaless_writer + 5-byte frame
     (local Schema Registry: cdcwire_avro.testing.LocalSchemaRegistry).
  8. craft encode / open-protocol encode, and craft decode / open-protocol decode, same events.
  9. (unless --skip-kafka) cdcwire.write of canal-json messages to kafka:// / a raw
     confluent_kafka Producer (enable.idempotence=true, acks=all; created, topic metadata fetched,
     messages produced and flushed in the timed region, as cdcwire.write does) producing the
     same messages to the same local broker (noida-db --only kafka, started and stopped here).
     Noisy at 20000 messages: a raw run takes either ~0.13 s or ~0.55 s (a start-up stall that
     some fresh producers hit and others do not), so the best of 3 can land on either.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cdcwire
import orjson
from cdcwire.api.codec_calls import decoder_for
from oltp_workload import oltp_events

QUIET = {
    "spark.ui.showConsoleProgress": "false",
    "spark.python.worker.faulthandler.enabled": "true",
    "spark.sql.execution.pyspark.udf.faulthandler.enabled": "true",
}
CANAL = "protocol=canal-json&enable-tidb-extension=true"
ROWS: list[tuple[str, float, str, str]] = []


def best_rate(run: Callable[[], int], repeat: int, setup: Callable[[], object] | None = None) -> float:
    """Best items per second over ``repeat`` runs of ``run`` (returns its item count);
    ``setup`` runs untimed before each."""
    best = 0.0
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        count = run()
        best = max(best, count / (time.perf_counter() - start))
    return best


def row(figure: str, rate: float, base: float, base_name: str, unit: str = "ev/s") -> None:
    ROWS.append((figure, rate / base, f"{rate:,.0f} {unit}", f"{base:,.0f} {unit} ({base_name})"))
    print(f"# {figure}: {rate / base:.2f}x", flush=True)


# ---------------------------------------------------------------------------------- Spark


def spark_rows(n: int, repeat: int, master: str, work: Path) -> None:
    from cdcwire import spark as cs
    from cdcwire.workload import Workload, write_workload

    spark = cs.spark_session(master, shuffle_partitions=8, **QUIET)
    jsonl = work / "events.jsonl"
    write_workload(Workload(n, seed=42), str(jsonl))
    df = cs.read_events(spark, str(jsonl)).cache()
    count = df.count()
    df.write.format("noop").mode("overwrite").save()  # warm the JVM up before timing
    df.repartition(6, "schema", "table").write.format("noop").mode("overwrite").save()

    def timed_write(write: Callable[[str], object], name: str) -> float:
        def run() -> int:
            out = work / name
            shutil.rmtree(out, ignore_errors=True)
            write(str(out))
            return count
        return best_rate(run, repeat)

    shuffled = timed_write(lambda d: df.repartition(6, "schema", "table")
                           .sortWithinPartitions("commit_ts").write.json(d), "base-shuffled")
    plain = timed_write(lambda d: df.write.json(d), "base-plain")  # kept: row 3's JSON Lines
    writes = {}
    for name, query in (("open-protocol", "protocol=open-protocol"), ("canal-json", CANAL),
                        ("craft", "protocol=craft")):
        def write(d: str, query: str = query) -> None:
            summary = cs.write(df, f"file://{d}/t?{query}&partition-num=6")
            assert summary.reconciles, summary.report()
        writes[name] = timed_write(write, f"sink-{name}")  # the last run's output is kept
    for name, rate in writes.items():
        row(f"1. Spark cs.write {name} / repartition+sort+write.json", rate, shuffled, "shuffled json")
    for name, rate in writes.items():
        row(f"2. Spark cs.write {name} / df.write.json", rate, plain, "df.write.json")

    craft_uri = f"file://{work}/sink-craft/t?protocol=craft"
    read_count = cs.read(spark, craft_uri).count()  # the copies: more rows than events, see row 3
    assert read_count >= count, (read_count, count)
    schema = spark.read.json(str(work / "base-plain")).schema  # inference untimed, as a user would give it

    def read_cdc() -> int:
        cs.read(spark, craft_uri).write.format("noop").mode("overwrite").save()
        return count

    def read_json() -> int:
        spark.read.schema(schema).json(str(work / "base-plain")).write.format("noop").mode("overwrite").save()
        return count

    base = best_rate(read_json, repeat)
    row("3. Spark cs.read craft / spark.read.json", best_rate(read_cdc, repeat), base, "read.json")
    df.unpersist()
    spark.stop()


# ---------------------------------------------------------------------------------- codecs


def open_frames(blob: bytes, skip_version: bool) -> list[bytes]:
    """The JSON documents of an open-protocol key (8-byte version first) or value."""
    docs, i = [], 8 if skip_version else 0
    while i < len(blob):
        (size,) = struct.unpack_from(">Q", blob, i)
        docs.append(blob[i + 8:i + 8 + size])
        i += 8 + size
    return docs


def decode_rate(uri: str, msgs: list, n: int, repeat: int) -> float:
    holder: dict = {}

    def setup() -> None:
        holder["d"] = decoder_for(uri)

    def run() -> int:
        decode = holder["d"].decode
        got = sum(len(decode(m)) for m in msgs)
        assert got == n, (got, n)
        return got
    return best_rate(run, repeat, setup)


def codec_rows(events: list, repeat: int) -> None:
    n = len(events)
    open_uri = "file:///tmp/cdcwire-hot/t?protocol=open-protocol"
    canal_uri = f"file:///tmp/cdcwire-hot/t?{CANAL}"
    craft_uri = "file:///tmp/cdcwire-hot/t?protocol=craft"
    canal_msgs = cdcwire.encode(canal_uri, events)
    open_msgs = cdcwire.encode(open_uri, events)
    craft_msgs = cdcwire.encode(craft_uri, events)

    # 4. canal-json decode / orjson.loads
    values = [m.value for m in canal_msgs]
    loads = orjson.loads
    base = best_rate(lambda: [loads(v) for v in values] and n, repeat)
    row("4. canal-json decode / orjson.loads", decode_rate(canal_uri, canal_msgs, n, repeat), base, "loads")

    # 5. open-protocol decode / orjson.loads of the key and value documents
    docs = []
    for m in open_msgs:
        docs += open_frames(m.key, True) + open_frames(m.value, False)
    assert len(docs) == 2 * n, (len(docs), n)
    base = best_rate(lambda: [loads(d) for d in docs] and n, repeat)
    open_dec = decode_rate(open_uri, open_msgs, n, repeat)
    row("5. open-protocol decode / orjson.loads", open_dec, base, "loads")

    # 6. encode / orjson.dumps of the documents carried
    dumps = orjson.dumps
    for name, uri, dicts in (("open-protocol", open_uri, [loads(d) for d in docs]),
                             ("canal-json", canal_uri, [loads(v) for v in values])):
        base = best_rate(lambda dicts=dicts: [dumps(d) for d in dicts] and n, repeat)
        rate = best_rate(lambda uri=uri: len(cdcwire.encode(uri, events)) and n, repeat)
        row(f"6. {name} encode / orjson.dumps", rate, base, "dumps")

    # 4c/5c/6c. the columnar paths the Spark stages take (EventBatch in and out, see cdcwire.model.event_batch)
    columnar_rows(events, canal_msgs, open_msgs, values, docs, repeat)

    # 8. craft / open-protocol, encode and decode
    open_enc = best_rate(lambda: len(cdcwire.encode(open_uri, events)) and n, repeat)
    craft_enc = best_rate(lambda: len(cdcwire.encode(craft_uri, events)) and n, repeat)
    craft_dec = decode_rate(craft_uri, craft_msgs, n, repeat)
    rows_8 = [("8. craft encode / open-protocol encode", craft_enc, open_enc, "open enc"),
              ("8. craft decode / open-protocol decode", craft_dec, open_dec, "open dec")]
    avro_rows(events, repeat)
    for args in rows_8:
        row(*args)


def columnar_rows(events: list, canal_msgs: list, open_msgs: list, values: list, docs: list, repeat: int) -> None:
    """Decode: ``decode_into`` an EventBatch, then to Arrow and checked in columns, chunks of
    4096 events (the Spark read's work per event). Encode: ``encode_batches`` of EventBatches
    of 4096 events made untimed (in Spark they come from Arrow), validated upstream (the
    routing stage's record checks)."""
    from cdcwire.api.codec_calls import columnar_decoder_for, encode_batches, encoder_for
    from cdcwire.model.event_batch import EventBatch
    from cdcwire.spark.rows.arrow_batches import event_batch_arrow
    from cdcwire.spark.rows.arrow_events import batch_problems

    n = len(events)
    loads, dumps = orjson.loads, orjson.dumps
    for name, uri, msgs, parsed in (("canal-json", f"file:///tmp/cdcwire-hot/t?{CANAL}", canal_msgs, values),
                                    ("open-protocol", "file:///tmp/cdcwire-hot/t?protocol=open-protocol",
                                     open_msgs, docs)):
        decoder = columnar_decoder_for(uri)
        if decoder is not None:
            def decode(decoder=decoder, msgs=msgs) -> int:
                got = 0
                for i in range(0, len(msgs), 4096):
                    batch = EventBatch.empty()
                    for m in msgs[i:i + 4096]:
                        decoder.decode_into(m, batch)
                    assert not batch_problems(event_batch_arrow(batch))
                    got += len(batch)
                assert got == n, (got, n)
                return got
            base = best_rate(lambda parsed=parsed: [loads(d) for d in parsed] and n, repeat)
            row(f"4c. {name} columnar decode (into Arrow, checked) / orjson.loads", best_rate(decode, repeat), base, "loads")
        batches = [EventBatch.of_events(events[i:i + 4096]) for i in range(0, n, 4096)]
        dicts = [loads(d) for d in parsed]
        base = best_rate(lambda dicts=dicts: [dumps(d) for d in dicts] and n, repeat)

        def encode(uri=uri) -> int:
            return sum(p.events for p in encode_batches(encoder_for(uri, "t", 0, events_checked=True), batches))
        row(f"6c. {name} columnar encode / orjson.dumps", best_rate(encode, repeat), base, "dumps")


def avro_rows(events: list, repeat: int) -> None:
    import fastavro
    from cdcwire.sinks.sink import open_sink
    from cdcwire_avro.testing import LocalSchemaRegistry
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    n = len(events)
    topic = "tidb_shop_orders"
    with LocalSchemaRegistry() as registry:
        uri = (f"file:///tmp/cdcwire-hot/t?protocol=avro&topic-rule=tidb_{{schema}}_{{table}}"
               f"&schema-registry={registry.url}")
        msgs = cdcwire.encode(uri, events)  # registers the schemas
        assert len(msgs) == n and all(m.topic == topic for m in msgs)
        config = cdcwire.parse_sink_uri(uri)
        encoder = open_sink(config).codec.encoder(config, topic, 0)
        list(encoder.encode(events[:1]))
        version = next(iter(encoder._versions.values()))
        key_schema, value_schema = version.key.schema, version.value.schema
        # the records cdcwire builds: key of every event, value unless it is a delete (tombstone)
        keys = [key_schema.record(e.columns or e.pre_columns) for e in events]
        vals = [value_schema.record(e.columns) if m.value is not None else None
                for e, m in zip(events, msgs)]

        client = SchemaRegistryClient({"url": registry.url})
        key_ser = AvroSerializer(client, key_schema.text)
        value_ser = AvroSerializer(client, value_schema.text)
        key_ctx = SerializationContext(topic, MessageField.KEY)
        value_ctx = SerializationContext(topic, MessageField.VALUE)
        for i in range(min(n, 50)):  # same bytes before speeds mean anything
            assert key_ser(keys[i], key_ctx) == msgs[i].key, i
            assert (value_ser(vals[i], value_ctx) if vals[i] is not None else None) == msgs[i].value, i

        def run_confluent() -> int:
            for k, v in zip(keys, vals):
                key_ser(k, key_ctx)
                if v is not None:
                    value_ser(v, value_ctx)
            return n

        key_parsed, value_parsed = key_schema.parsed, value_schema.parsed
        key_header, value_header = version.key.header, version.value.header

        def run_fastavro() -> int:
            write = fastavro.schemaless_writer
            for k, v in zip(keys, vals):
                buf = io.BytesIO()
                buf.write(key_header)
                write(buf, key_parsed, k)
                buf.getvalue()
                if v is not None:
                    buf = io.BytesIO()
                    buf.write(value_header)
                    write(buf, value_parsed, v)
                    buf.getvalue()
            return n

        key_de, value_de = AvroDeserializer(client), AvroDeserializer(client)

        def run_deser() -> int:
            for m in msgs:
                key_de(m.key, key_ctx)
                if m.value is not None:
                    value_de(m.value, value_ctx)
            return n

        enc = best_rate(lambda: len(cdcwire.encode(uri, events)) and n, repeat)
        row("7. avro encode / AvroSerializer", enc, best_rate(run_confluent, repeat), "confluent")
        row("7. avro decode / AvroDeserializer", decode_rate(uri, msgs, n, repeat),
            best_rate(run_deser, repeat), "confluent")
        row("7. avro encode / fastavro + 5-byte frame", enc, best_rate(run_fastavro, repeat), "fastavro")


# ---------------------------------------------------------------------------------- Kafka


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kafka_ready(bootstrap: str) -> bool:
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    try:
        return bool(AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=2).brokers)
    except KafkaException:
        return False


def kafka_rows(events: list, repeat: int, work: Path) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    port = free_port()
    bootstrap = f"127.0.0.1:{port}"
    with open(work / "noida-db.log", "ab") as log:  # own process group: stopped as a whole below
        proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "noida-db"), "start", "--data-dir", str(work / "kafka"),
             "--only", "kafka", "--kafka-port", str(port)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 30
        while not kafka_ready(bootstrap):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("noida-db did not come up: " + (work / "noida-db.log").read_text()[-2000:])
            time.sleep(0.1)
        admin = AdminClient({"bootstrap.servers": bootstrap})
        topics = [f"cdc{i}" for i in range(repeat)] + [f"raw{i}" for i in range(repeat)]
        for f in admin.create_topics([NewTopic(t, 1, 1) for t in topics]).values():
            f.result(timeout=30)
        msgs = cdcwire.encode(f"file:///tmp/cdcwire-hot/t?{CANAL}", events)
        cdc_topics, raw_topics = iter(topics[:repeat]), iter(topics[repeat:])

        def run_cdcwire() -> int:
            t = next(cdc_topics)
            return cdcwire.write(f"kafka://{bootstrap}/{t}?{CANAL}", msgs) and len(msgs)

        def run_raw() -> int:
            t = next(raw_topics)
            producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all"})
            # the topic's metadata first, as cdcwire.write fetches it before producing
            producer.list_topics(t, timeout=30)
            for m in msgs:
                while True:
                    try:
                        producer.produce(t, m.value, m.key, partition=0)
                        break
                    except BufferError:
                        producer.poll(0.05)
                producer.poll(0)
            assert producer.flush(60) == 0
            return len(msgs)

        base = best_rate(run_raw, repeat)
        row("9. cdcwire.write kafka canal-json / raw Producer", best_rate(run_cdcwire, repeat), base,
            "Producer", "msg/s")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=20000, help="events for the codec and Kafka rows")
    ap.add_argument("--spark-events", type=int, default=100000, help="events for the Spark rows")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs per rate")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--skip-spark", action="store_true")
    ap.add_argument("--skip-kafka", action="store_true")
    args = ap.parse_args()

    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="cdcwire-hot-"))
    try:
        if not args.skip_spark:
            spark_rows(args.spark_events, args.repeat, args.master, work)
        events = oltp_events(args.events, 42)
        codec_rows(events, args.repeat)
        if not args.skip_kafka:
            kafka_rows(events, args.repeat, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print()
    print(f"codec rows: {args.events:,} OLTP events; Spark rows: {args.spark_events:,} events on "
          f"{args.master}; best of {args.repeat}; {time.monotonic() - started:.0f}s")
    print()
    print("| figure | ratio | cdcwire rate | baseline rate |")
    print("|---|---:|---:|---:|")
    for figure, ratio, rate, base in ROWS:
        print(f"| {figure} | {ratio:.2f}x | {rate} | {base} |")


if __name__ == "__main__":
    main()
