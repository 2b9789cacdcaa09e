"""avro's Java decoding tier (its plugin's ``MessageDecoder``) against its Python decoder: a
read gives the same rows on both tiers for every column kind and option set, Java reads every
row message it is sure of, and the Python decoder reads every other message (no key, an
unknown schema id, trailing bytes, an op it refuses) in its place and words every error."""

from __future__ import annotations

import dataclasses
import functools
import random
from urllib.parse import quote

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.foundation.errors import DecodeError
from cdcwire.testing.jvm_tiers import (
    messages_read_otherwise, on_tier, pending_of, read_on_both_tiers, refusals_on_both_tiers,
    sink_of_messages,
)
from cdcwire.testing.mutations import seeded_mutated
from cdcwire.workload import Workload

from test_spark_java_encoding import every_kind_rows, trap_rows

OPTION_SETS = {
    "defaults": "",
    "extension": "&enable-tidb-extension=true",
    "decimal and bigint unsigned as text": (
        "&enable-tidb-extension=true&avro-decimal-handling-mode=string&avro-bigint-unsigned-handling-mode=string"
    ),
}
KEY = Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY, 1, "int(11)")


@pytest.fixture
def tier(spark):
    """Runs a read on the named tier (``python`` or ``auto``), then puts the setting back."""
    return functools.partial(on_tier, spark)


def query(registry_url: str, options: str = OPTION_SETS["extension"]) -> str:
    return (
        f"protocol=avro&topic-rule=tidb_{{schema}}_{{table}}&partition-num=1"
        f"&schema-registry={quote(registry_url, safe='')}{options}"
    )


def messages(registry_url: str, events, options: str = OPTION_SETS["extension"]) -> list[tuple[bytes, bytes]]:
    """The (key, value) messages of these events, their schemas registered in the registry."""
    uri = f"file:///tmp/t?{query(registry_url, options)}"
    return [(m.key, m.value) for m in cdcwire.encode(uri, events)]


@pytest.mark.parametrize("options", OPTION_SETS.values(), ids=OPTION_SETS.keys())
def test_every_column_kind_and_the_value_traps_read_the_same_on_both_tiers(
    spark, tier, tmp_path, schema_registry, options,
):
    events = [*every_kind_rows(6), *keyed_trap_rows()]
    uri = sink_of_messages(tmp_path, messages(schema_registry.url, events, options),
                           query(schema_registry.url, options))
    python, java = read_on_both_tiers(spark, uri)
    assert len(python) == len(events)
    assert java == python


def test_java_reads_every_column_kind_and_value_trap_itself(spark, tmp_path, schema_registry):
    events = [*every_kind_rows(6), *keyed_trap_rows()]
    uri = sink_of_messages(tmp_path, messages(schema_registry.url, events), query(schema_registry.url))
    assert pending_of(spark, uri) == [False] * len(events)


def test_a_workload_reads_the_same_on_both_tiers_and_java_reads_every_row(spark, tier, tmp_path, schema_registry):
    rows = [e for e in Workload(300, seed=7) if isinstance(e, RowChangedEvent)]
    written = messages(schema_registry.url, rows)
    uri = sink_of_messages(tmp_path, written, query(schema_registry.url))
    python, java = read_on_both_tiers(spark, uri)
    assert len(python) == len(written) >= len(rows)  # one event a message
    assert java == python
    assert not any(pending_of(spark, uri))


def keyed_trap_rows() -> list[RowChangedEvent]:
    """The value traps, each row given a handle key (the avro protocol writes none without one)."""
    def with_key(image, i):
        return None if image is None else (Column("k", KEY.type, KEY.flags, i, KEY.mysql_type), *image)

    return [dataclasses.replace(e, columns=with_key(e.columns, i), pre_columns=with_key(e.pre_columns, i))
            for i, e in enumerate(trap_rows())]


def _row(op_pre: bool = False) -> RowChangedEvent:
    name = Column("name", ColumnType.VARCHAR, ColumnFlag.NULLABLE, "pear", "varchar(8)")
    return RowChangedEvent(1 << 40, "shop", "fruit", (KEY, name), (KEY, name) if op_pre else None)


def _left_to_python(registry_url: str) -> dict[str, tuple[bytes | None, bytes | None]]:
    """Messages the Java tier must leave to Python: each is read, or refused, by the Python decoder."""
    key, value = messages(registry_url, [_row()])[0]
    op_at = value.rindex(b"\x02c")  # _tidb_op "c": a string of length 1
    return {
        "no key": (None, value),
        "an unknown value schema id": (key, value[:1] + (999).to_bytes(4, "big") + value[5:]),
        "an unknown key schema id": (key[:1] + (999).to_bytes(4, "big") + key[5:], value),
        "no magic byte": (key, b"\x01" + value[1:]),
        "bytes after the value's record": (key, value + b"\x00"),
        "bytes after the key's record": (key + b"\x00", value),
        "a value cut short": (key, value[:-3]),
        "a _tidb_op other than c or u": (key, value[:op_at] + b"\x02x" + value[op_at + 2:]),
        "a string that is not UTF-8": (key, value.replace(b"pear", b"pe\xffr")),
        "an INT whose varint holds more than 32 bits": (key, value[:5] + b"\x80\x80\x80\x80\x10" + value[6:]),
    }


def test_java_leaves_each_message_it_is_not_sure_of_to_python(spark, tmp_path, schema_registry):
    plain = messages(schema_registry.url, [_row()])[0]
    left = _left_to_python(schema_registry.url)
    uri = sink_of_messages(tmp_path, [plain, *left.values()], query(schema_registry.url))
    pending = pending_of(spark, uri)
    assert pending[0] is False  # the plain message, for comparison
    read = [name for name, is_pending in zip(left, pending[1:]) if not is_pending]
    assert read == [], f"Java read messages it must leave to Python: {read}"


def test_a_permissive_read_of_bad_messages_gives_the_same_rows_on_both_tiers(spark, tier, tmp_path, schema_registry):
    plain = messages(schema_registry.url, [_row()])[0]
    uri = sink_of_messages(tmp_path, [plain, *_left_to_python(schema_registry.url).values(), plain],
                           query(schema_registry.url))
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert sum(r["_malformed"] is not None for r in python) >= 5
    assert java == python


def test_a_refused_message_fails_the_read_with_the_same_error_on_both_tiers(spark, tier, tmp_path, schema_registry):
    plain = messages(schema_registry.url, [_row()])[0]
    bad = _left_to_python(schema_registry.url)["bytes after the value's record"]
    uri = sink_of_messages(tmp_path, [plain, bad], query(schema_registry.url))
    refusals = refusals_on_both_tiers(spark, lambda: cs.read(spark, uri).collect())
    errors = [(type(e), str(e), e.where) for e in refusals]
    assert errors[0][0] is DecodeError and errors[0][2] == "t/0/1"
    assert errors[1] == errors[0]


def test_mutated_messages_read_the_same_on_both_tiers(spark, tier, tmp_path, schema_registry):
    rng = random.Random(13)
    whole = messages(schema_registry.url, every_kind_rows(4))
    values = []
    for _ in range(40):
        key, value = rng.choice(whole)
        if key is not None and rng.random() < 0.2:
            values.append((seeded_mutated(rng, key), value))
        else:
            values.append((key, None if value is None else seeded_mutated(rng, value)))
    uri = sink_of_messages(tmp_path, values, query(schema_registry.url))
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert sum(r["_malformed"] is not None for r in python) > 5
    assert sum(r["_malformed"] is None for r in python) > 5
    differing = messages_read_otherwise(python, java)
    assert [values[o] for _, _, o in differing[:3]] == []
    assert len(java) == len(python)
