"""avro's Java encoder (a ``BatchEncoder`` whose every message closes on its own row) against the
Python codec: a Spark write encoded in the JVM gives the Python tier's Confluent-framed keys and
values byte for byte, in the same partitions and order, for every option set; Java registers the
Python encoder's schema texts itself; what Java is not sure of (a registry that does not answer,
a message over max-message-bytes) is Python's, row by row."""

from __future__ import annotations

import dataclasses
from urllib.parse import quote

import pytest
from cdcwire_avro.testing import LocalSchemaRegistry

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.spark.writer.jvm_encoding import EVENTS_COLUMN, encoding_tier
from cdcwire.testing.jvm_tiers import (
    messages_in_files, write_errors_on_both_tiers, write_on_python_tier, writes_on_both_tiers,
)
from cdcwire.workload import Workload
from test_spark_java_encoding import PK, _frame, every_kind_rows, placed_after_java_encoding, trap_rows

TS = 470_000_000_000_000_000
N = ColumnFlag.NULLABLE
U = ColumnFlag.UNSIGNED
OPTION_SETS = {
    "defaults": "",
    "extension": "&enable-tidb-extension=true",
    "decimal and bigint unsigned as text": (
        "&enable-tidb-extension=true&avro-decimal-handling-mode=string&avro-bigint-unsigned-handling-mode=string"
    ),
}


def query(registry_url: str, options: str = "", partitions: int = 3) -> str:
    return (f"protocol=avro&topic-rule=tidb_{{schema}}_{{table}}&partition=index-value&partition-num={partitions}"
            f"&schema-registry={quote(registry_url, safe='')}{options}")


def avro_rows(ts: int = TS) -> list[RowChangedEvent]:
    """The kinds whose Avro field reads its type text (DECIMAL's precision and scale, BIT's width,
    ENUM's and SET's elements, a comma in one), BIGINT UNSIGNED past the int64 maximum, NOT NULL
    columns, names that need sanitizing (non-ASCII, a leading digit) and texts past 63 UTF-8 bytes."""
    def image(i: int) -> tuple[Column, ...]:
        return (
            Column("id", ColumnType.BIGINT, PK | U, (1 << 64) - 1 - i, "bigint(20) unsigned"),
            Column("2nd key", ColumnType.VARCHAR, PK, f"k{i}", "varchar(10)"),
            Column("d", ColumnType.DECIMAL, N, ["0", "-0", "1.", ".5", "+7.25", "-12345.6789"][i % 6], "decimal(10,4)"),
            Column("d0", ColumnType.DECIMAL, ColumnFlag(0), str(10 ** 19 + i), "decimal(20,0)"),
            Column("b", ColumnType.BIT, N | U, [0, 1, 255, 256, 4095][i % 5], "bit(12)"),
            Column("b64", ColumnType.BIT, U, (1 << 64) - 1 - i, "bit(64)"),
            Column("e", ColumnType.ENUM, N, i % 4, "enum('a','b,c','ü')"),
            Column("s", ColumnType.SET, N, [0, 1, 5, 7][i % 4], "set('x','y','z')"),
            Column("f", ColumnType.FLOAT, N, [0.5, -0.0, 3.4e38, 1e-40][i % 4], "float"),
            Column("ünï", ColumnType.VARCHAR, N, "é" * (40 + i), "varchar(255)"),
            Column("bin", ColumnType.VARCHAR, N | ColumnFlag.BINARY, bytes(range(i, i + 70)), "varbinary(70)"),
        )

    out = []
    for i in range(6):
        out.append(RowChangedEvent(ts + 10 * i, "1 shöp-db", "t.x 1", image(i), None))
        out.append(RowChangedEvent(ts + 10 * i + 1, "1 shöp-db", "t.x 1", image(i + 1), image(i)))
        out.append(RowChangedEvent(ts + 10 * i + 2, "1 shöp-db", "t.x 1", None, image(i + 1)))
    return out


def _key_changes(row: RowChangedEvent) -> bool:
    def key(image):
        return [c.value for c in image if c.is_handle_key]
    return row.columns is not None and row.pre_columns is not None and key(row.columns) != key(row.pre_columns)


def keyed(rows: list[RowChangedEvent]) -> list[RowChangedEvent]:
    """The rows with a handle key (avro's message key needs one: the others are an error)."""
    return [r for r in rows if any(c.is_handle_key for c in r.columns or r.pre_columns)]


def all_events() -> list:
    return (list(Workload(300, seed=12, tables=3, resolved_every=25, ddl_every=60))
            + every_kind_rows(10) + keyed(trap_rows()) + avro_rows())


@pytest.mark.parametrize("options", OPTION_SETS.values(), ids=OPTION_SETS.keys())
def test_an_avro_write_encoded_in_java_gives_the_python_tiers_messages(spark, tmp_path, schema_registry, options):
    events = _frame(spark, all_events()).drop("_cdc_seq")
    q = query(schema_registry.url, options)
    assert encoding_tier(cdcwire.open_sink(f"file://{tmp_path}/jvm?{q}"), events, "jvm")[0] == "jvm"
    python, java = writes_on_both_tiers(events, tmp_path, q)
    assert java == python and java.reconciles


def test_java_makes_each_rows_message_itself_and_a_delete_is_a_tombstone(spark, tmp_path, schema_registry):
    stream = avro_rows() + every_kind_rows(10)
    events = _frame(spark, stream).drop("_cdc_seq")
    q = query(schema_registry.url, OPTION_SETS["extension"])
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/a?{q}"), events)
    assert len(rows) == len(stream) + sum(1 for e in stream if _key_changes(e))  # index-value splits those
    assert all(r[EVENTS_COLUMN] == 1 for r in rows)  # one message a row, each Java's
    _, java = writes_on_both_tiers(events, tmp_path, q)
    values = [value for messages in java.messages.values() for _, value in messages]
    assert values.count(None) == sum(1 for e in stream if e.columns is None or _key_changes(e))


def test_java_registers_the_python_encoders_schema_texts(spark, tmp_path):
    events = _frame(spark, avro_rows() + every_kind_rows(10)).drop("_cdc_seq").coalesce(1)
    texts = []
    for tier, write in (("py", write_on_python_tier), ("jvm", cs.write)):
        with LocalSchemaRegistry() as registry:
            write(events, f"file://{tmp_path}/{tier}?{query(registry.url, OPTION_SETS['extension'], 1)}")
            texts.append(registry.texts_by_subject())
    assert texts[0] == texts[1]
    assert len(texts[0]) == 4 and all(texts[0].values())  # two tables' key and value subjects, each with versions


def test_ddl_and_watermarks_write_nothing_and_the_rows_around_them_are_javas(spark, tmp_path, schema_registry):
    rows = every_kind_rows(1)  # an insert, then an update of the same key (one topic: the table's)
    ddl = DDLEvent(rows[0].commit_ts + 1, "shop", "every_kind", "ALTER TABLE every_kind ADD c INT",
                   DDLType.ADD_COLUMN)
    stream = [rows[0], ddl, ResolvedEvent(rows[0].commit_ts + 2), dataclasses.replace(rows[1], commit_ts=ddl.commit_ts + 2)]
    events = _frame(spark, stream).drop("_cdc_seq").coalesce(1)
    q = query(schema_registry.url, partitions=1)
    placed = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/a?{q}"), events)
    assert [(r.kind, r[EVENTS_COLUMN]) for r in placed] == [("insert", 1), ("update", 1)]
    python, java = writes_on_both_tiers(events, tmp_path, q)
    assert java == python and java.reconciles


def test_rows_java_could_not_register_for_are_written_by_the_python_encoder(spark, tmp_path, schema_registry):
    """The registry fails Java's one attempt: the task's rows go to Python, whose client retries;
    the files are the Python tier's (each registry numbers the same schemas alike)."""
    events = _frame(spark, avro_rows()).drop("_cdc_seq").coalesce(1)
    write_on_python_tier(events, f"file://{tmp_path}/py/t?{query(schema_registry.url, partitions=1)}")
    with LocalSchemaRegistry() as fresh:
        fresh.fail_next(1)
        java = cs.write(events, f"file://{tmp_path}/jvm/t?{query(fresh.url, partitions=1)}")
    assert java.reconciles and java.messages == len(avro_rows()) + sum(map(_key_changes, avro_rows()))
    assert messages_in_files(tmp_path / "jvm") == messages_in_files(tmp_path / "py")


def test_a_registry_with_credentials_or_tls_keeps_the_python_encoder(spark, tmp_path):
    df = _frame(spark, avro_rows()[:1]).drop("_cdc_seq")
    for url in ("http://user:secret@127.0.0.1:1", "https://127.0.0.1:1"):
        tier, reason = encoding_tier(cdcwire.open_sink(f"file://{tmp_path}/a?{query(url)}"), df, "jvm")
        assert tier == "python"
        assert "secret" not in reason and "registry" in reason


def test_a_row_over_max_message_bytes_fails_a_java_tier_write_with_the_python_encoders_error(
        spark, tmp_path, schema_registry):
    events = _frame(spark, avro_rows()[:1]).drop("_cdc_seq")
    errors = write_errors_on_both_tiers(events, tmp_path, f"{query(schema_registry.url)}&max-message-bytes=150")
    assert errors[0] == errors[1]
    assert "max-message-bytes=150" in errors[0]
