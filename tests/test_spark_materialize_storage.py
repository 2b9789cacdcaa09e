"""cs.materialize of a TiCDC storage-sink layout: the tables equal replaying the layout in order in
plain Python (``cdcwire.read_storage``), after a first run and after runs over files TiCDC wrote
since (more files in a directory, a new partition directory, a new table version with a column
added, replayed rows, rows past the checkpoint), each run reading only from the last file it
read in each directory on."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import cdcwire
from cdcwire import Column, ColumnFlag as F, ColumnType as T, DDLEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.values.ddl_statements import renamed_tables
from cdcwire.foundation.errors import CdcwireError
from cdcwire.spark.tables.table_state import STATE_FILE, TablesState
from cdcwire.transports.storage.csv_encoding import CsvEncoder
from cdcwire.transports.storage.location import StorageLocation, shown_uri
from cdcwire.transports.storage.position import LayoutPosition
from cdcwire.transports.storage.replay import csv_options
from cdcwire.transports.storage.schema_files import TableCol
from storage_layout import Layout
from test_storage_read import ADD_AGE, AGE, CREATE_ORDERS, CREATE_USERS, ID, NAME, order, user

PARAMS = "protocol=csv&include-commit-ts=true&date-separator=none&file-index-digit=6"
EMAIL = TableCol("email", "VARCHAR", "40")
ADD_EMAIL = "ALTER TABLE users ADD COLUMN email VARCHAR(40)"


def uri_of(root: Path) -> str:
    return f"local://{root}?{PARAMS}"


def member(ts: int, id_: int, name: str, age, email: str) -> RowChangedEvent:
    """A users row of the table version with the email column."""
    row = user(ts, id_, name, age)
    return RowChangedEvent(ts, "app", "users", (*row.columns, Column("email", T.VARCHAR, F.NULLABLE, email, "varchar(40)")))


def update(new: RowChangedEvent) -> RowChangedEvent:
    return RowChangedEvent(new.commit_ts, new.schema, new.table, new.columns, new.columns[:1], new.table_id)


def delete(old: RowChangedEvent) -> RowChangedEvent:
    return RowChangedEvent(old.commit_ts, old.schema, old.table, None, old.columns, old.table_id)


class TiCDC:
    """TiCDC writing the layout over time: whole files appended to a directory (each the next
    index, then the index file), schema files of new versions, the checkpoint moved."""

    def __init__(self, root: Path) -> None:
        self.layout = Layout(root)
        location = StorageLocation.parse(uri_of(root))
        self.encoder = CsvEncoder(csv_options(location), location["binary-encoding-method"])

    def file(self, directory: str, rows: list[RowChangedEvent]) -> None:
        index = 1 + len(list(self.layout.root.glob(f"{directory}/CDC*.csv")))
        self.layout.data(directory, index, [self.encoder.encode(r).removesuffix("\r\n") for r in rows])


def first_layout(root: Path) -> TiCDC:
    """Two table versions of app.users (an ADD COLUMN between them) and a partitioned app.orders,
    written by cdcwire.write_storage; then a replayed file, and the checkpoint below eve (260)."""
    cdcwire.write_storage(uri_of(root), [
        CREATE_USERS, CREATE_ORDERS, user(110, 1, "ann"), order(115, 7, 61), user(120, 2, "bob"), order(130, 8, 60),
        update(user(140, 1, "anna")), ADD_AGE, user(210, 3, "cy", 30), delete(user(220, 2, "bob", None)),
        user(260, 5, "eve", 50),
    ])
    ticdc = TiCDC(root)
    ticdc.file("app/users/100", [user(110, 1, "ann"), user(120, 2, "bob"), update(user(140, 1, "anna"))])  # a replay
    ticdc.layout.checkpoint(250)
    return ticdc


def second_files(ticdc: TiCDC) -> None:
    """A file replaying the last one and going on (gil at 300 is past the new checkpoint), a
    file more in a partition, a new partition directory."""
    ticdc.file("app/users/200", [user(210, 3, "cy", 30), delete(user(220, 2, "bob", None)), user(260, 5, "eve", 50),
                                 update(user(270, 3, "cyd", 31)), user(280, 6, "fay", 60), user(300, 8, "gil", 20)])
    ticdc.file("app/orders/105/61", [order(265, 9, 61)])
    ticdc.file("app/orders/105/62", [order(275, 10, 62)])
    ticdc.layout.checkpoint(290)


def third_files(ticdc: TiCDC) -> None:
    """A table version adding a column, rows of the old version still coming, a delete in a partition."""
    ticdc.file("app/users/200", [user(300, 8, "gil", 20), update(user(305, 6, "fay", 61))])
    ticdc.layout.schema("app", "users", 310, [ID, NAME, AGE, EMAIL], ADD_EMAIL, 5)
    ticdc.file("app/users/310", [member(320, 9, "hal", 25, "h@x"), update(member(330, 1, "ann", None, "a@x"))])
    ticdc.file("app/orders/105/60", [delete(order(340, 8, 60))])
    ticdc.layout.checkpoint(350)


def replayed(uri: str) -> dict[str, dict[int, dict]]:
    """The tables replaying the layout in order gives: table -> id -> row (NULLs left out)."""
    tables: dict[str, dict[int, dict]] = {}
    for e in cdcwire.read_storage(uri):
        for old, new in renamed_tables(e.query) if isinstance(e, DDLEvent) else ():  # the table moves, rows and all
            tables[f"{new.schema or e.schema}.{e.table}"] = tables.pop(f"{old.schema or e.schema}.{old.table}", {})
        if isinstance(e, RowChangedEvent):
            table = tables.setdefault(f"{e.schema}.{e.table}", {})
            if e.pre_columns is not None:
                table.pop(e.pre_columns[0].value, None)
            if e.columns is not None:
                table[e.columns[0].value] = {c.name: c.value for c in e.columns if c.value is not None}
    return tables


def materialized_table(out: Path, fmt: str, name: str) -> dict[int, dict]:
    """A table as materialized: id -> row (NULLs left out)."""
    if fmt == "delta":
        from deltalake import DeltaTable

        rows = DeltaTable(str(out / name)).to_pyarrow_table().to_pylist()
    else:
        rows = pq.read_table(out / TablesState.load(str(out), "parquet").snapshots[name]).to_pylist()
    return {r["id"]: {k: v for k, v in r.items() if v is not None} for r in rows}


def materialized(out: Path, fmt: str, names=("app.users", "app.orders")) -> dict[str, dict[int, dict]]:
    return {name: materialized_table(out, fmt, name) for name in names}


def tables_in(out: Path, fmt: str) -> set[str]:
    state = TablesState.load(str(out), fmt)
    return set(state.snapshots if fmt == "parquet" else state.applied)


RENAME_USERS = "RENAME TABLE `app`.`users` TO `app`.`people`"


def person(ts: int, id_: int, name: str, age) -> RowChangedEvent:
    row = user(ts, id_, name, age)
    return RowChangedEvent(ts, "app", "people", row.columns)


def renamed_users(ticdc: TiCDC) -> None:
    """users renamed to people at 300: rows of users up to it, then an update of an older row
    and an insert under the new name."""
    ticdc.file("app/users/200", [user(270, 3, "cyd", 31), user(280, 6, "fay", 60)])
    ticdc.layout.schema("app", "people", 300, [ID, NAME, AGE], RENAME_USERS, 14)
    ticdc.file("app/people/300", [update(person(310, 1, "annie", 41)), person(320, 7, "gus", 70)])
    ticdc.layout.checkpoint(350)


@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_a_run_and_two_incremental_runs_equal_an_in_order_replay_of_the_layout(spark, tmp_path: Path, fmt) -> None:
    root, out = tmp_path / "layout", tmp_path / "tables"
    ticdc, uri = first_layout(root), uri_of(root)
    first = cs.materialize(spark, uri, str(out), format=fmt)
    assert (first.release_ts, first.complete, first.pending) == (250, True, 0)
    assert materialized(out, fmt) == replayed(uri)
    assert 5 not in materialized(out, fmt)["app.users"]  # eve (260) is past the checkpoint

    second_files(ticdc)
    second = cs.materialize(spark, uri, str(out), format=fmt)
    assert second.release_ts == 290 and materialized(out, fmt) == replayed(uri)
    # only what is new: eve, cyd, fay, order 9 and order 10, and the resolved event
    assert second.events_read == 6

    third_files(ticdc)
    cs.materialize(spark, uri, str(out), format=fmt)
    tables = materialized(out, fmt)
    assert tables == replayed(uri)
    assert tables["app.users"][1] == {"id": 1, "name": "ann", "email": "a@x"}  # rows of both versions, the new column
    assert tables["app.users"][3] == {"id": 3, "name": "cyd", "age": 31}  # null in it for the older rows


def test_a_table_renamed_after_a_run_keeps_its_rows_under_its_new_name(spark, tmp_path: Path, fmt="parquet") -> None:
    # Delta's directory moves: tests/test_spark_materialize.py, from a topic
    root, out = tmp_path / "layout", tmp_path / "tables"
    ticdc, uri = first_layout(root), uri_of(root)
    cs.materialize(spark, uri, str(out), format=fmt)
    renamed_users(ticdc)
    cs.materialize(spark, uri, str(out), format=fmt)
    people = materialized_table(out, fmt, "app.people")
    assert people == replayed(uri)["app.people"]
    assert people[1] == {"id": 1, "name": "annie", "age": 41} and people[3]["name"] == "cyd"  # older rows moved
    assert tables_in(out, fmt) == {"app.people", "app.orders"}


def test_a_table_renamed_within_a_run_is_one_table_under_its_new_name(spark, tmp_path: Path) -> None:
    root, out = tmp_path / "layout", tmp_path / "tables"
    ticdc, uri = first_layout(root), uri_of(root)
    renamed_users(ticdc)
    cs.materialize(spark, uri, str(out))
    assert materialized_table(out, "parquet", "app.people") == replayed(uri)["app.people"]
    assert tables_in(out, "parquet") == {"app.people", "app.orders"}


def test_a_layout_written_in_small_files_materializes_as_one_written_in_whole_files(spark, tmp_path: Path) -> None:
    """cdcwire.write_storage at a small file-size puts a directory's rows in many files: the tables
    are those the same events give when each directory is one file."""
    events = [CREATE_USERS, CREATE_ORDERS, *(user(110 + i, i, f"u{i}") for i in range(12)), order(125, 7, 61),
              update(user(130, 3, "cy")), delete(user(140, 5, "u5")), order(150, 8, 61)]
    small, whole = tmp_path / "small", tmp_path / "whole"
    cdcwire.write_storage(uri_of(small) + "&file-size=80", events)
    cdcwire.write_storage(uri_of(whole), events)
    assert len(list((small / "app/users/100").glob("CDC*.csv"))) >= 5
    cs.materialize(spark, uri_of(small) + "&file-size=80", str(tmp_path / "tables"))
    tables = materialized(tmp_path / "tables", "parquet")
    assert tables == replayed(uri_of(whole)) and tables["app.users"][3] == {"id": 3, "name": "cy"}


def test_the_state_keeps_the_checkpoint_and_the_last_file_read_in_each_directory(spark, tmp_path: Path) -> None:
    root, out = tmp_path / "layout", tmp_path / "tables"
    second_files(first_layout(root))
    cs.materialize(spark, uri_of(root), str(out))
    assert TablesState.load(str(out), "parquet").layout == LayoutPosition.of(290, {
        "app/users/100/meta/CDC.index": 2, "app/users/200/meta/CDC.index": 2, "app/orders/105/60/meta/CDC.index": 1,
        "app/orders/105/61/meta/CDC.index": 2, "app/orders/105/62/meta/CDC.index": 1,
    })


def test_a_run_with_the_checkpoint_unmoved_says_nothing_new_and_changes_nothing(spark, tmp_path: Path, capsys) -> None:
    from cdcwire.cli import main

    root, out = tmp_path / "layout", tmp_path / "tables"
    ticdc = first_layout(root)
    assert main(["materialize", uri_of(root), "--out", str(out), "--quiet"]) == 0
    ticdc.file("app/users/200", [user(300, 8, "gil", 20)])  # written, but the checkpoint has not moved
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert main(["materialize", uri_of(root), "--out", str(out), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("nothing to do: the source holds nothing new since the last run")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_a_table_filter_reads_only_its_tables_files(spark, tmp_path: Path) -> None:
    root, out = tmp_path / "layout", tmp_path / "tables"
    first_layout(root)
    summary = cs.materialize(spark, uri_of(root), str(out), tables="app.orders")
    assert sorted(summary.tables) == ["app.orders"]
    assert [p for p, _ in TablesState.load(str(out), "parquet").layout.files] == [
        "app/orders/105/60/meta/CDC.index", "app/orders/105/61/meta/CDC.index"]


def test_a_run_whose_deletes_empty_the_buckets_they_touch_applies_them(spark, tmp_path: Path) -> None:
    root, out = tmp_path / "layout", tmp_path / "tables"
    cdcwire.write_storage(uri_of(root), [CREATE_ORDERS, order(115, 7, 61), order(120, 8, 61)])
    cs.materialize(spark, uri_of(root), str(out))
    ticdc = TiCDC(root)
    ticdc.file("app/orders/105/61", [delete(order(130, 8, 61))])  # order 8's bucket holds no other row
    ticdc.layout.checkpoint(130)
    summary = cs.materialize(spark, uri_of(root), str(out))
    assert summary.tables["app.orders"].deleted == 1 and materialized_table(out, "parquet", "app.orders") == {7: {"id": 7}}


def test_a_layout_on_s3_materializes_and_its_keys_stay_out_of_the_state(spark, tmp_path: Path, s3_bucket) -> None:
    from fixtures.s3_server import SECRET_KEY

    uri = s3_bucket.storage_uri("cdc") + "&" + PARAMS
    cdcwire.write_storage(uri, [CREATE_USERS, user(110, 1, "ann"), user(120, 2, "bob"), delete(user(130, 1, "ann"))])
    summary = cs.materialize(spark, uri, str(tmp_path / "tables"))
    assert summary.release_ts == 130 and materialized_table(tmp_path / "tables", "parquet", "app.users") == {
        2: {"id": 2, "name": "bob"}}
    assert SECRET_KEY not in (tmp_path / "tables" / STATE_FILE).read_text()


def test_a_state_materialized_from_a_topic_refuses_a_layout(spark, tmp_path: Path) -> None:
    topic = f"file://{tmp_path}/topic/t?protocol=canal-json&enable-tidb-extension=true"
    TablesState("parquet", source=topic, run=1).save(str(tmp_path / "tables"))
    with pytest.raises(CdcwireError, match=re.escape(f"was materialized from {topic}; it cannot continue from local://")):
        cs.materialize(spark, uri_of(tmp_path / "layout"), str(tmp_path / "tables"))


def test_a_state_materialized_from_a_layout_refuses_a_topic(spark, tmp_path: Path) -> None:
    layout = uri_of(tmp_path / "layout")
    TablesState("parquet", source=shown_uri(layout), run=1, layout=LayoutPosition(250)).save(str(tmp_path / "tables"))
    with pytest.raises(CdcwireError, match=re.escape(f"was materialized from local://{tmp_path}/layout?")):
        cs.materialize(spark, f"file://{tmp_path}/topic/t?protocol=canal-json&enable-tidb-extension=true",
                       str(tmp_path / "tables"))


def test_a_csv_layout_without_commit_ts_is_refused_naming_the_parameter(spark, tmp_path: Path) -> None:
    with pytest.raises(CdcwireError, match="materialize needs each row's commit ts.*give include-commit-ts=true"):
        cs.materialize(spark, f"local://{tmp_path}?protocol=csv", str(tmp_path / "tables"))
    assert not (tmp_path / "tables" / STATE_FILE).exists()


def test_a_damaged_layout_position_in_the_state_is_one_error_naming_the_field(tmp_path: Path) -> None:
    TablesState("parquet", source="local:///x", run=1, layout=LayoutPosition(250)).save(str(tmp_path))
    state = tmp_path / STATE_FILE
    state.write_text(state.read_text().replace('"checkpoint": 250', '"checkpoint": "250"'))
    with pytest.raises(CdcwireError, match=r"is damaged: field layout is \{.*, not null or where the read of a storage-sink"):
        TablesState.load(str(tmp_path), "parquet")


def test_a_layout_position_past_2_64_in_the_state_is_one_error_naming_the_field(tmp_path: Path) -> None:
    TablesState("parquet", source="local:///x", run=1, layout=LayoutPosition(250)).save(str(tmp_path))
    state = tmp_path / STATE_FILE
    state.write_text(state.read_text().replace('"checkpoint": 250', f'"checkpoint": {1 << 64}'))
    with pytest.raises(CdcwireError, match=r"is damaged: field layout is \{\"checkpoint\": 18446744073709551616, .*, not null or where the read"):
        TablesState.load(str(tmp_path), "parquet")
