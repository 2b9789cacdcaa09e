"""Avro encode rate: cdcwire against confluent_kafka's AvroSerializer and raw fastavro.

All three write the same key and value records with the same schemas and the
same local Schema Registry (cdcwire_avro.testing.LocalSchemaRegistry), in one run:

- cdcwire: the avro codec's encoder from row events (record building, value
  conversion, Confluent framing, key + value) - what ``cdcwire.encode`` runs per
  topic-partition after dispatch;
- confluent: ``AvroSerializer`` for key and value, given the prepared Avro
  records (dicts) cdcwire would build - it does no event conversion at all;
- fastavro: ``schemaless_writer`` of the same prepared records into a buffer
  with the 5-byte header - the floor any Python Avro encoder stands on.

    /work/venv/bin/python benchmarks/avro_rates.py [--events 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import json
import struct
import time
from typing import Callable

import fastavro
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

import cdcwire
from cdcwire import Column, ColumnFlag as F, ColumnType as T, RowChangedEvent
from cdcwire_avro.testing import LocalSchemaRegistry
from cdcwire.sinks.sink import open_sink

KEY = F.HANDLE_KEY | F.PRIMARY_KEY
COMMIT_TS = 424_316_552_636_940_289
TOPIC = "tidb_shop_orders"


def workload(n: int) -> list[RowChangedEvent]:
    """Inserts on a typical orders table: ints, text, money, times, a blob, an enum, nulls."""
    events = []
    for i in range(n):
        cols = (
            Column("id", T.BIGINT, KEY, i, "bigint(20)"),
            Column("customer", T.INT, F(0), i % 9973, "int(11)"),
            Column("sku", T.VARCHAR, F(0), f"SKU-{i % 5000:05d}", "varchar(32)"),
            Column("note", T.VARCHAR, F.NULLABLE, None if i % 3 else f"note {i}", "varchar(255)"),
            Column("qty", T.SMALLINT, F.UNSIGNED, i % 40, "smallint(5) unsigned"),
            Column("price", T.DECIMAL, F(0), f"{i % 100000}.{i % 100:02d}", "decimal(12,2)"),
            Column("weight", T.DOUBLE, F.NULLABLE, i * 0.25, "double"),
            Column("created", T.DATETIME, F.BINARY, "2026-11-22 08:00:00", "datetime"),
            Column("status", T.ENUM, F(0), 1 + i % 3, "enum('new','paid','sent')"),
            Column("payload", T.BLOB, F.BINARY | F.NULLABLE, b"\x00\x01\x02" * (i % 8), "blob"),
        )
        events.append(RowChangedEvent(COMMIT_TS + i, "shop", "orders", cols))
    return events


def rate(run: Callable[[], int], repeat: int) -> float:
    """Best events per second over ``repeat`` runs."""
    best = 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        count = run()
        best = max(best, count / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    events = workload(args.events)

    with LocalSchemaRegistry() as registry:
        uri = (
            f"file:///tmp/cdcwire-bench/t?protocol=avro&topic-rule=tidb_{{schema}}_{{table}}"
            f"&schema-registry={registry.url}"
        )
        config = cdcwire.parse_sink_uri(uri)
        encoder = open_sink(config).codec.encoder(config, TOPIC, 0)
        first = list(encoder.encode(events[:1]))  # registers both schemas
        version = next(iter(encoder._versions.values()))
        key_schema, value_schema = version.key.schema, version.value.schema
        key_records = [key_schema.record(e.columns) for e in events]
        value_records = [value_schema.record(e.columns) for e in events]

        def run_cdcwire() -> int:
            return sum(1 for _ in encoder.encode(events))

        client = SchemaRegistryClient({"url": registry.url})
        key_ser = AvroSerializer(client, key_schema.text)
        value_ser = AvroSerializer(client, value_schema.text)
        key_ctx = SerializationContext(TOPIC, MessageField.KEY)
        value_ctx = SerializationContext(TOPIC, MessageField.VALUE)

        def run_confluent() -> int:
            for k, v in zip(key_records, value_records):
                key_ser(k, key_ctx)
                value_ser(v, value_ctx)
            return len(key_records)

        key_parsed, value_parsed = key_schema.parsed, value_schema.parsed
        key_header, value_header = version.key.header, version.value.header

        def run_fastavro() -> int:
            write = fastavro.schemaless_writer
            for k, v in zip(key_records, value_records):
                buf = io.BytesIO()
                buf.write(key_header)
                write(buf, key_parsed, k)
                buf.getvalue()
                buf = io.BytesIO()
                buf.write(value_header)
                write(buf, value_parsed, v)
                buf.getvalue()
            return len(key_records)

        # the three must produce the same bytes before their speeds mean anything
        k0, v0 = key_ser(key_records[0], key_ctx), value_ser(value_records[0], value_ctx)
        assert (first[0].key, first[0].value) == (k0, v0), "cdcwire and confluent bytes differ"
        assert struct.unpack(">I", first[0].value[1:5])[0] == json.loads(
            json.dumps(client.get_latest_version(f"{TOPIC}-value").schema_id)
        )

        results = [
            ("fastavro schemaless_writer (floor)", rate(run_fastavro, args.repeat)),
            ("confluent_kafka AvroSerializer", rate(run_confluent, args.repeat)),
            ("cdcwire avro encoder (from events)", rate(run_cdcwire, args.repeat)),
        ]
        registrations = registry.registrations

    floor = results[0][1]
    confluent = results[1][1]
    print(f"avro encode, {args.events} inserts of a 10-column table, key + value, best of {args.repeat}")
    print(f"{'encoder':<38} {'events/s':>12} {'vs fastavro':>12} {'vs confluent':>13}")
    for name, value in results:
        print(f"{name:<38} {value:>12,.0f} {value / floor:>11.2f}x {value / confluent:>12.2f}x")
    print(f"schemas registered: {registrations} (key + value, once)")


if __name__ == "__main__":
    main()
