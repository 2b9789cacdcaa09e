"""cs.changelog: one table's row images as typed rows with Flink's row kinds, batch and streaming;
cs.table_columns infers the types, cs.zero_date_counts counts the dates lost on the way."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from pathlib import Path

import pytest
from pyspark.sql.types import DecimalType, IntegerType, LongType, StringType

import cdcwire
from cdcwire import CdcwireError
from cdcwire import spark as cs
from cdcwire.values.column_kinds import COLUMN_KINDS
from cdcwire.model.events import Column, RowChangedEvent
from cdcwire.spark.tables.table_types import TableColumn, column_type, element_names, spark_type_of, widen
from cdcwire.values.type_codes import ColumnFlag, ColumnType

T = ColumnType
KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
U64 = (1 << 64) - 1
UTC = dt.timezone.utc

#: label: (value, (Spark type, value) with the full type text, (Spark type, value) from code and flags only)
EVERY_TYPE = {
    "tinyint": (-128, ("int", -128), ("int", -128)),
    "tinyint_unsigned": (255, ("int", 255), ("int", 255)),
    "smallint": (-32768, ("int", -32768), ("int", -32768)),
    "smallint_unsigned": (65535, ("int", 65535), ("int", 65535)),
    "mediumint": (-8388608, ("int", -8388608), ("int", -8388608)),
    "mediumint_unsigned": (16777215, ("int", 16777215), ("int", 16777215)),
    "int": (-2147483648, ("int", -2147483648), ("int", -2147483648)),
    "int_unsigned": (4294967295, ("bigint", 4294967295), ("bigint", 4294967295)),
    "bigint": (-(1 << 63), ("bigint", -(1 << 63)), ("bigint", -(1 << 63))),
    "bigint_unsigned": (U64, ("decimal(20,0)", Decimal(U64)), ("decimal(20,0)", Decimal(U64))),
    "float": (1.5, ("float", 1.5), ("float", 1.5)),
    "double": (2.25, ("double", 2.25), ("double", 2.25)),
    "decimal": ("-12345.6789", ("decimal(10,4)", Decimal("-12345.6789")), ("string", "-12345.6789")),
    "decimal_int": ("99999999999999999999", ("decimal(20,0)", Decimal("99999999999999999999")),
                    ("string", "99999999999999999999")),
    "date": ("2024-02-29", ("date", dt.date(2024, 2, 29)), ("date", dt.date(2024, 2, 29))),
    "datetime": ("2024-02-29 13:14:15.123456",
                 ("timestamp_ntz", dt.datetime(2024, 2, 29, 13, 14, 15, 123456)),
                 ("timestamp_ntz", dt.datetime(2024, 2, 29, 13, 14, 15, 123456))),
    "timestamp": ("2024-02-29 13:14:15", ("timestamp", dt.datetime(2024, 2, 29, 13, 14, 15, tzinfo=UTC)),
                  ("timestamp", dt.datetime(2024, 2, 29, 13, 14, 15, tzinfo=UTC))),
    "time": ("-838:59:59", ("string", "-838:59:59"), ("string", "-838:59:59")),
    "year": (2024, ("int", 2024), ("int", 2024)),
    "varchar": ("héllo 😀", ("string", "héllo 😀"), ("string", "héllo 😀")),
    "varbinary": (b"\x00\xff", ("binary", b"\x00\xff"), ("binary", b"\x00\xff")),
    "char": ("c", ("string", "c"), ("string", "c")),
    "binary": (bytes(range(40)), ("binary", bytes(range(40))), ("binary", bytes(range(40)))),
    "tinytext": ("tt", ("string", "tt"), ("string", "tt")),
    "tinyblob": (b"\x01", ("binary", b"\x01"), ("binary", b"\x01")),
    "text": ("t", ("string", "t"), ("string", "t")),
    "blob": (b"\x02", ("binary", b"\x02"), ("binary", b"\x02")),
    "mediumtext": ("mt", ("string", "mt"), ("string", "mt")),
    "mediumblob": (b"\x03", ("binary", b"\x03"), ("binary", b"\x03")),
    "longtext": ("lt", ("string", "lt"), ("string", "lt")),
    "longblob": (b"\x04", ("binary", b"\x04"), ("binary", b"\x04")),
    "json": ('{"a": [1, 2]}', ("string", '{"a": [1, 2]}'), ("string", '{"a": [1, 2]}')),
    "enum": (2, ("string", "b"), ("int", 2)),
    "set": (5, ("string", "a,c"), ("decimal(20,0)", Decimal(5))),
    "bit": (4095, ("bigint", 4095), ("decimal(20,0)", Decimal(4095))),
    "bit64": (U64, ("decimal(20,0)", Decimal(U64)), ("decimal(20,0)", Decimal(U64))),
}


def _frame(spark, tmp_path: Path, events, name: str = "events.jsonl"):
    path = tmp_path / name
    with open(path, "w", encoding="utf-8") as f:
        cdcwire.write_jsonl(events, f)
    return cs.read_events(spark, str(path))


def _col(name, type_, value, flags=0, mysql_type=None) -> Column:
    return Column(name, type_, ColumnFlag(flags), value, mysql_type)


def _row(ts: int, columns, pre_columns=None, **kw) -> RowChangedEvent:
    return RowChangedEvent(ts, "s", "t", columns, pre_columns, **kw)


def _in_order(df) -> list:
    return df.orderBy("_cdc_commit_ts", "_cdc_seq").collect()


def _type_text(kind, text: str):
    """The column's type text as each kind of source gives it: all of it, none, canal-json's base name."""
    return {"full": kind.mysql_type, "none": None, "canal-base": re.sub(r"\(.*\)", "", kind.mysql_type)}[text]


@pytest.mark.parametrize("text", ["full", "none", "canal-base"])
def test_every_mysql_type_maps_as_the_table_says(spark, tmp_path, text) -> None:
    """With the full type text (avro, canal-json content-compatible), with none (open-protocol,
    craft) and with canal-json's bare base names (``decimal``, ``enum``, ``int unsigned``)."""
    image = (_col("id", T.INT, 1, KEY, "int(11)"),) + tuple(
        _col(k.label, k.type, EVERY_TYPE[k.label][0], k.flags, _type_text(k, text)) for k in COLUMN_KINDS
    )
    out = cs.changelog(_frame(spark, tmp_path, [_row(10, image)]), "s.t")
    want = {label: case[1] if text == "full" else case[2] for label, case in EVERY_TYPE.items()}
    types = {f.name: f.dataType.simpleString() for f in out.schema.fields}
    assert {label: types[label] for label in want} == {label: w[0] for label, w in want.items()}
    row = out.collect()[0].asDict()
    got = {label: row[label] for label in want}
    got = {k: bytes(v) if isinstance(v, bytearray) else v for k, v in got.items()}
    got["timestamp"] = got["timestamp"].astimezone(UTC)  # collected as the Python process's local time
    assert got == {label: w[1] for label, w in want.items()}
    assert row["_cdc_kind"] == "+I" and row["id"] == 1


def test_an_update_is_its_old_image_then_its_new_one(spark, tmp_path) -> None:
    old = (_col("id", T.INT, 1, KEY), _col("v", T.VARCHAR, "before"))
    new = (_col("id", T.INT, 1, KEY), _col("v", T.VARCHAR, "after"))
    df = _frame(spark, tmp_path, [_row(5, old), _row(6, new, old), _row(7, None, new)])
    rows = _in_order(cs.changelog(df, "s.t"))
    assert [(r["_cdc_kind"], r["v"], int(r["_cdc_commit_ts"]), r["_cdc_seq"]) for r in rows] == [
        ("+I", "before", 5, 0), ("-U", "before", 6, 0), ("+U", "after", 6, 1), ("-D", "after", 7, 0)]


def test_an_update_that_changes_the_handle_key_is_a_delete_then_an_insert(spark, tmp_path) -> None:
    one = (_col("id", T.INT, 1, KEY), _col("v", T.VARCHAR, "x"))
    two = (_col("id", T.INT, 2, KEY), _col("v", T.VARCHAR, "x"))
    rows = _in_order(cs.changelog(_frame(spark, tmp_path, [_row(5, one), _row(6, two, one)]), "s.t"))
    assert [(r["_cdc_kind"], r["id"]) for r in rows] == [("+I", 1), ("-D", 1), ("+I", 2)]


def test_zero_dates_are_null_and_counted(spark, tmp_path) -> None:
    def image(i, d, when, ts):
        return (_col("id", T.INT, i, KEY), _col("d", T.DATE, d, 1, "date"),
                _col("dt", T.DATETIME, when, 1, "datetime"), _col("ts", T.TIMESTAMP, ts, 1, "timestamp"))
    events = [
        _row(5, image(1, "0000-00-00", "0000-00-00 00:00:00", "0000-00-00 00:00:00")),
        _row(6, image(2, "2024-00-10", "2024-02-00 10:00:00", "2024-01-01 00:00:00")),  # zero-in-date parts
        _row(7, image(3, "2024-01-02", "2024-01-02 03:04:05", None)),
    ]
    df = _frame(spark, tmp_path, events)
    columns = cs.table_columns(df, "s.t")
    rows = {r["id"]: r for r in cs.changelog(df, "s.t", columns=columns).collect()}
    assert (rows[1]["d"], rows[1]["dt"], rows[1]["ts"]) == (None, None, None)
    assert (rows[2]["d"], rows[2]["dt"]) == (None, None) and rows[2]["ts"] is not None
    assert (rows[3]["d"], rows[3]["dt"]) == (dt.date(2024, 1, 2), dt.datetime(2024, 1, 2, 3, 4, 5))
    # a SQL NULL is not counted
    assert cs.zero_date_counts(df, "s.t", columns) == {"d": 2, "dt": 2, "ts": 1}


def test_timestamp_text_is_read_in_the_time_zone(spark, tmp_path) -> None:
    """UTC by default (every type's test); a zone id and an offset here."""
    image = (_col("id", T.INT, 1, KEY), _col("ts", T.TIMESTAMP, "2024-01-01 08:00:00", 1))
    df = _frame(spark, tmp_path, [_row(5, image)])
    columns = [TableColumn.of("id", "INT", KEY), TableColumn.of("ts", "TIMESTAMP")]
    instants = {zone: cs.changelog(df, "s.t", time_zone=zone, columns=columns).first()["ts"].astimezone(UTC)
                for zone in ("Asia/Shanghai", "-05:30")}
    utc = {zone: t.strftime("%H:%M") for zone, t in instants.items()}
    assert utc == {"Asia/Shanghai": "00:00", "-05:30": "13:30"}


def test_a_time_zone_spark_cannot_read_is_refused(spark, tmp_path) -> None:
    df = _frame(spark, tmp_path, [_row(5, (_col("id", T.INT, 1, KEY),))])
    with pytest.raises(ValueError, match="time_zone"):
        cs.changelog(df, "s.t", time_zone="SYSTEM")


def test_table_columns_are_in_first_seen_order_with_the_latest_type(spark, tmp_path) -> None:
    """A column added later comes last; a type changed by DDL is the latest one, widened to hold
    the earlier values (int to bigint; int then varchar to string)."""
    events = [
        _row(5, (_col("id", T.INT, 1, KEY), _col("n", T.INT, 7), _col("v", T.INT, 1))),
        _row(6, (_col("id", T.INT, 2, KEY), _col("added", T.VARCHAR, "a"),
                 _col("n", T.BIGINT, 1 << 40, 0, "bigint(20)"), _col("v", T.VARCHAR, "x"))),
    ]
    df = _frame(spark, tmp_path, events)
    columns = cs.table_columns(df, "s.t")
    assert [(c.name, c.spark_type.simpleString(), c.type) for c in columns] == [
        ("id", "int", T.INT), ("n", "bigint", T.BIGINT), ("v", "string", T.VARCHAR),
        ("added", "string", T.VARCHAR)]
    assert columns[1].mysql_type == "bigint(20)"
    rows = sorted(cs.changelog(df, "s.t", columns=columns).collect(), key=lambda r: r["id"])
    assert [(r["n"], r["v"], r["added"]) for r in rows] == [(7, "1", None), (1 << 40, "x", "a")]


def test_a_value_that_does_not_fit_its_type_is_null_not_a_failed_job(spark, tmp_path) -> None:
    """Spark runs ANSI mode: a cast that overflows would fail the job; the changelog's are try_ casts."""
    event = _row(5, (_col("id", T.INT, 1, KEY), _col("p", T.DECIMAL, "123456789.5", 0, "decimal(20,4)"),
                     _col("n", T.BIGINT, 1 << 40)))
    columns = [TableColumn.of("id", "INT"), TableColumn.of("p", "DECIMAL", mysql_type="decimal(10,4)"),
               TableColumn("n", IntegerType(), T.BIGINT)]  # types given by hand, too narrow for the values
    row = cs.changelog(_frame(spark, tmp_path, [event]), "s.t", columns=columns).first()
    assert (row["id"], row["p"], row["n"]) == (1, None, None)


def test_only_the_named_tables_row_events_are_rows(spark, tmp_path) -> None:
    mine = (_col("id", T.INT, 1, KEY),)
    events = [_row(5, mine), RowChangedEvent(5, "s", "other", mine), RowChangedEvent(5, "s2", "t", mine),
              cdcwire.DDLEvent(4, "s", "t", "CREATE TABLE t (id int)", cdcwire.DDLType.CREATE_TABLE),
              cdcwire.ResolvedEvent(6)]
    df = _frame(spark, tmp_path, events)
    rows = cs.changelog(df, ("s", "t"), columns=[TableColumn.of("id", "INT")]).collect()
    assert [(r["_cdc_schema"], r["_cdc_table"], r["id"]) for r in rows] == [("s", "t", 1)]


def test_a_handle_key_only_row_has_its_key_and_says_so(spark, tmp_path) -> None:
    events = [_row(5, (_col("id", T.INT, 9, KEY),), handle_key_only=True)]
    columns = [TableColumn.of("id", "INT", KEY), TableColumn.of("v", "VARCHAR")]
    row = cs.changelog(_frame(spark, tmp_path, events), "s.t", columns=columns).first()
    assert (row["id"], row["v"], row["_cdc_handle_key_only"]) == (9, None, True)


def test_enum_and_set_elements_with_quotes_and_commas_are_named(spark, tmp_path) -> None:
    text = "enum('it''s','a\\\\b','x,y')"
    image = (_col("id", T.INT, 1, KEY), _col("e", T.ENUM, 1, 0, text), _col("f", T.ENUM, 2, 0, text),
             _col("g", T.ENUM, 0, 0, text), _col("s", T.SET, 7, 0, text.replace("enum", "set")))
    row = cs.changelog(_frame(spark, tmp_path, [_row(5, image)]), "s.t").first()
    assert (row["e"], row["f"], row["g"], row["s"]) == ("it's", "a\\b", "", "it's,a\\b,x,y")


def test_typed_columns_type_any_image_column(spark, tmp_path) -> None:
    """What materialize calls on final images: one image column in, the table's typed columns out."""
    from pyspark.sql import functions as F

    image = (_col("id", T.BIGINT, 1 << 40, KEY), _col("d", T.DATE, "2024-05-06", 1),
             _col("u", T.BIGINT, U64, ColumnFlag.UNSIGNED), _col("s", T.SET, 6, 0, "set('a','b','c')"))
    df = _frame(spark, tmp_path, [_row(5, image)])
    columns = [TableColumn.of("u", "BIGINT", ColumnFlag.UNSIGNED), TableColumn.of("d", "DATE"),
               TableColumn.of("missing", "INT"), TableColumn.of("s", "SET", 0, "set('a','b','c')")]
    row = df.select(*cs.typed_columns(F.col("columns"), columns)).first()
    assert row.asDict() == {"u": Decimal(U64), "d": dt.date(2024, 5, 6), "missing": None, "s": "b,c"}


def _stream_events() -> list:
    def image(price):
        return (_col("id", T.INT, 1, KEY), _col("p", T.DECIMAL, price, 0, "decimal(5,2)"))
    return [_row(5, image("1.50")), _row(6, image("2.50"), image("1.50"))]


def test_a_streaming_frame_with_columns_given_is_typed(spark, tmp_path) -> None:
    inbox = tmp_path / "inbox"
    batch = _frame(spark, tmp_path, _stream_events())
    batch.write.parquet(str(inbox))
    columns = cs.table_columns(batch, "s.t")  # types from a batch sample
    stream = spark.readStream.schema(cs.EVENT_SCHEMA).parquet(str(inbox))
    query = (cs.changelog(stream, "s.t", columns=columns).writeStream.format("memory")
             .queryName("changelog_stream").option("checkpointLocation", str(tmp_path / "ckpt"))
             .trigger(availableNow=True).start())
    try:
        query.awaitTermination(60)
    finally:
        query.stop()
    rows = _in_order(spark.table("changelog_stream"))
    assert [(r["_cdc_kind"], r["p"]) for r in rows] == [
        ("+I", Decimal("1.50")), ("-U", Decimal("1.50")), ("+U", Decimal("2.50"))]
    assert spark.table("changelog_stream").schema["p"].dataType == DecimalType(5, 2)


def test_a_streaming_frame_without_columns_is_refused_with_the_way_out(spark, tmp_path) -> None:
    inbox = tmp_path / "inbox"
    _frame(spark, tmp_path, _stream_events()).write.parquet(str(inbox))
    stream = spark.readStream.schema(cs.EVENT_SCHEMA).parquet(str(inbox))
    with pytest.raises(CdcwireError, match=r"needs columns=.*table_columns.*foreachBatch"):
        cs.changelog(stream, "s.t")


def test_a_frame_read_from_a_sink_keeps_topic_partition_and_offset(spark, tmp_path) -> None:
    uri = f"file://{tmp_path}/orders?protocol=open-protocol&partition-num=2"
    events = [RowChangedEvent(100 + i, "app", "orders", 
                              (_col("id", T.BIGINT, i, KEY), _col("qty", T.INT, 10 * i)))
              for i in range(4)]
    cdcwire.write(uri, cdcwire.encode(uri, events))
    out = cs.changelog(cs.read(spark, uri), "app.orders")
    assert out.columns == ["_cdc_kind", "id", "qty", "_cdc_commit_ts", "_cdc_schema", "_cdc_table",
                           "_cdc_topic", "_cdc_partition", "_cdc_offset", "_cdc_seq", "_cdc_handle_key_only"]
    rows = out.collect()
    got = sorted((r["id"], r["qty"], int(r["_cdc_commit_ts"])) for r in rows)
    assert got == [(i, 10 * i, 100 + i) for i in range(4)]
    assert {r["_cdc_topic"] for r in rows} == {"orders"}
    assert all(r["_cdc_partition"] in (0, 1) and r["_cdc_offset"] is not None for r in rows)
    assert not any(r["_cdc_handle_key_only"] for r in rows)


def test_the_type_table_reads_precision_elements_bit_length_and_widens() -> None:
    assert spark_type_of(T.DECIMAL, 0, "decimal(38,10)") == DecimalType(38, 10)
    assert spark_type_of(T.DECIMAL, 0, "decimal(65,2)") == StringType()
    assert spark_type_of(T.DECIMAL, 0, "decimal(12)") == DecimalType(12, 0)
    assert spark_type_of(T.BIT, 0, "bit(63)") == LongType()
    assert spark_type_of(T.INT, 0, "int(10) unsigned") == LongType()  # no flag: the text says it
    assert element_names("enum('it''s','a,b','')") == ("it's", "a,b", "")
    assert widen(IntegerType(), DecimalType(20, 0)) == DecimalType(20, 0)
    assert widen(DecimalType(10, 4), DecimalType(20, 0)) == DecimalType(24, 4)
    assert widen(DecimalType(30, 0), DecimalType(20, 10)) == StringType()


def test_a_column_type_in_other_than_ascii_digits_is_not_a_type_name():
    with pytest.raises(ValueError, match=r"'²' is not a column type name"):
        column_type("²")
