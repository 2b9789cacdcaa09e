"""A TiCDC storage-sink layout read back in the order TiCDC's storage consumer replays it:
table versions in order with each DDL before its data, files up to their index, rows up to
the root checkpoint, replayed files dropped (``cmd/storage-consumer/consumer.go``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag as F, ColumnType as T, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire.transports.storage.places import LayoutError
from cdcwire.transports.storage.schema_files import TableCol
from storage_layout import Layout

KEY = F.HANDLE_KEY | F.PRIMARY_KEY
ID = TableCol("id", "INT", "11", nullable="false", is_pk="true")
NAME = TableCol("name", "VARCHAR", "20")
AGE = TableCol("age", "INT", "11")
V1, V2 = 100, 200
OPTS = {"include-commit-ts": "true", "date-separator": "none"}


def row(ts: int, id_: int, name: str, *more: int, table_id=None) -> RowChangedEvent:
    cols = (Column("id", T.INT, KEY, id_, "int(11)"), Column("name", T.VARCHAR, F.NULLABLE, name, "varchar(20)"))
    cols += tuple(Column("age", T.INT, F.NULLABLE, m, "int(11)") for m in more)
    return RowChangedEvent(ts, "app", "users", cols, table_id=table_id)


def users_layout(root: Path) -> Layout:
    """Two table versions of app.users, an ADD COLUMN between them."""
    layout = Layout(root)
    layout.schema("app", "users", V1, [ID, NAME], "CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(20))", 3)
    layout.data(f"app/users/{V1}", 1, ['"I","users","app",110,1,"ann"', '"I","users","app",120,2,"bob"'])
    layout.schema("app", "users", V2, [ID, NAME, AGE], "ALTER TABLE users ADD COLUMN age INT", 5)
    layout.data(f"app/users/{V2}", 1, ['"I","users","app",210,3,"cy",30'])
    layout.checkpoint(300)
    return layout


def test_two_table_versions_replay_in_order_each_ddl_before_its_data(tmp_path: Path) -> None:
    layout = users_layout(tmp_path)
    assert list(cdcwire.read_storage(layout.uri(**OPTS))) == [
        DDLEvent(V1, "app", "users", "CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(20))", DDLType.CREATE_TABLE),
        row(110, 1, "ann"), row(120, 2, "bob"),
        DDLEvent(V2, "app", "users", "ALTER TABLE users ADD COLUMN age INT", DDLType.ADD_COLUMN),
        row(210, 3, "cy", 30),
        ResolvedEvent(300),
    ]


def test_each_event_carries_its_file_and_line(tmp_path: Path) -> None:
    layout = users_layout(tmp_path)
    places = [str(p.place) for p in cdcwire.read_storage_placed(layout.uri(**OPTS))]
    assert places[1:3] == [f"app/users/{V1}/CDC000001.csv:1", f"app/users/{V1}/CDC000001.csv:2"]
    assert places[0].startswith("app/users/meta/schema_100_") and places[-1] == "metadata"


def test_rows_past_the_checkpoint_wait_for_a_later_read(tmp_path: Path) -> None:
    layout = users_layout(tmp_path)
    layout.checkpoint(150)  # version 200 and its rows are not complete yet
    events = list(cdcwire.read_storage(layout.uri(**OPTS)))
    assert [e.commit_ts for e in events] == [V1, 110, 120, 150]


def test_a_row_past_the_checkpoint_inside_a_complete_file_is_left_out(tmp_path: Path) -> None:
    layout = users_layout(tmp_path)
    layout.checkpoint(115)
    assert [e.commit_ts for e in cdcwire.read_storage(layout.uri(**OPTS))] == [V1, 110, 115]


def test_a_file_written_after_the_index_is_not_read(tmp_path: Path) -> None:
    layout = users_layout(tmp_path)
    layout.data(f"app/users/{V2}", 2, ['"I","users","app",220,4,"dee",40'], indexed=False)
    assert [e.commit_ts for e in cdcwire.read_storage(layout.uri(**OPTS))][-2:] == [210, 300]


def test_a_replayed_file_gives_its_rows_once(tmp_path: Path) -> None:
    layout = users_layout(tmp_path)
    lines = ['"I","users","app",210,3,"cy",30', '"I","users","app",230,5,"eve",50']
    layout.data(f"app/users/{V2}", 2, lines)  # TiCDC restarted and wrote 210 again with what followed
    layout.data(f"app/users/{V2}", 3, lines)
    events = list(cdcwire.read_storage(layout.uri(**OPTS)))
    assert [e.commit_ts for e in events if isinstance(e, RowChangedEvent)] == [110, 120, 210, 230]


def test_partitions_read_in_their_own_directories_with_their_table_id(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", V1, [ID, NAME], "CREATE TABLE users ... PARTITION BY HASH(id) PARTITIONS 2", 3)
    layout.data(f"app/users/{V1}/61", 1, ['"I","users","app",110,2,"bob"'])
    layout.data(f"app/users/{V1}/60", 1, ['"I","users","app",120,1,"ann"'])
    layout.checkpoint(300)
    rows = [e for e in cdcwire.read_storage(layout.uri(**OPTS)) if isinstance(e, RowChangedEvent)]
    assert rows == [row(120, 1, "ann", table_id=60), row(110, 2, "bob", table_id=61)]


def test_date_directories_and_twenty_digit_indexes(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", V1, [ID, NAME])
    layout.data(f"app/users/{V1}/2026-11-24", 1, ['"I","users","app",110,1,"ann"'], width=20)
    layout.data(f"app/users/{V1}/2026-11-25", 1, ['"I","users","app",120,2,"bob"'], width=20)
    layout.checkpoint(300)
    rows = [e for e in cdcwire.read_storage(layout.uri(**{**OPTS, "date-separator": "day"})) if isinstance(e, RowChangedEvent)]
    assert [r.commit_ts for r in rows] == [110, 120]


def test_table_id_paths_take_names_from_the_schema_file(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", V1, [ID, NAME], "CREATE TABLE users (id INT, name VARCHAR(20))", 3, table_id=42)
    layout.data(f"42/{V1}", 1, ['"I","users","app",110,1,"ann"'])
    layout.checkpoint(300)
    events = list(cdcwire.read_storage(layout.uri(**OPTS, **{"use-table-id-as-path": "true"})))
    assert events[1:] == [row(110, 1, "ann"), ResolvedEvent(300)] and events[0].table == "users"


def test_a_database_ddl_comes_before_the_tables_of_later_versions(tmp_path: Path) -> None:
    layout = users_layout(tmp_path)
    layout.schema("app", "", 50, None, "CREATE DATABASE app", 1)
    events = list(cdcwire.read_storage(layout.uri(**OPTS)))
    assert events[0] == DDLEvent(50, "app", "", "CREATE DATABASE app", DDLType.CREATE_SCHEMA)


def test_a_schema_file_changed_after_it_was_named_stops_the_read_naming_it(tmp_path: Path) -> None:
    layout = users_layout(tmp_path)
    [path] = (tmp_path / "app/users/meta").glob("schema_200_*.json")
    path.write_text(path.read_text().replace('"age"', '"agE"'))
    with pytest.raises(LayoutError) as info:
        list(cdcwire.read_storage(layout.uri(**OPTS)))
    assert str(info.value).startswith(f"app/users/meta/{path.name}: schema file checksum is ")


def test_a_damaged_csv_line_stops_the_read_naming_path_and_line(tmp_path: Path) -> None:
    layout = users_layout(tmp_path)
    layout.data(f"app/users/{V2}", 2, ['"I","users","app",220,4,"dee",40', '"I","users","app",230,5'])
    with pytest.raises(LayoutError, match=rf"^app/users/{V2}/CDC000002.csv:2: 5 fields, the schema file's 3 columns need 7"):
        list(cdcwire.read_storage(layout.uri(**OPTS)))


def test_a_directory_without_a_checkpoint_is_named_as_not_a_layout(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match=r"^metadata: no checkpoint file in local://"):
        list(cdcwire.read_storage(Layout(tmp_path).uri()))


def test_a_checkpoint_past_2_64_is_refused_naming_the_metadata_file(tmp_path: Path) -> None:
    layout = users_layout(tmp_path)
    layout.checkpoint(1 << 64)  # would give ResolvedEvent(2**64), which no event check passes
    with pytest.raises(LayoutError, match=r"^metadata: checkpoint-ts 18446744073709551616 is not a ts \(an integer 0..2\^64-1\)"):
        list(cdcwire.read_storage(layout.uri(**OPTS)))


def test_a_partition_directory_past_int64_is_refused_naming_its_path(tmp_path: Path) -> None:
    layout = users_layout(tmp_path)
    directory = f"app/users/{V2}/{1 << 63}"  # a row's table_id would be past the signed 64 bits every event has
    layout.data(directory, 1, ['"I","users","app",220,4,"dee",40'])
    with pytest.raises(LayoutError, match=rf"^{directory}/\S+: partition {1 << 63} is past {(1 << 63) - 1}"):
        list(cdcwire.read_storage(layout.uri(**OPTS)))


def test_reading_messages_of_a_layout_points_to_read_storage(tmp_path: Path) -> None:
    with pytest.raises(cdcwire.CdcwireError, match=r"names a TiCDC storage-sink location \(files, not messages\): read it with cdcwire.read_storage"):
        cdcwire.read(Layout(tmp_path).uri())


def test_an_unknown_parameter_is_named(tmp_path: Path) -> None:
    with pytest.raises(cdcwire.SinkURIError, match=r"unknown parameter 'delimeter'"):
        cdcwire.read_storage(Layout(tmp_path).uri(delimeter=";"))


def test_a_four_character_delimiter_is_refused(tmp_path: Path) -> None:
    with pytest.raises(cdcwire.SinkURIError, match=r"parameter 'delimiter': must be 1 to 3 characters"):
        cdcwire.read_storage(Layout(tmp_path).uri(delimiter="abcd"))


def test_ticdcs_file_spelling_of_a_csv_layout_points_to_local() -> None:
    with pytest.raises(cdcwire.SinkURIError, match=r"protocol 'csv' is TiCDC's storage sink format.*local:///dir\?protocol=csv"):
        cdcwire.read("file:///data/cdc?protocol=csv")


def test_a_snapshot_cut_by_table_replays_to_the_same_events(tmp_path: Path) -> None:
    from cdcwire.transports.storage.layout import snapshot
    from cdcwire.transports.storage.location import StorageLocation
    from cdcwire.transports.storage.replay import replay

    layout = users_layout(tmp_path)
    layout.data(f"app/users/{V2}/7", 1, ['"I","users","app",220,4,"dee",40'])
    location = StorageLocation.parse(layout.uri(**OPTS))
    whole = [p.event for p in replay(location)]
    parts = snapshot(location).by_table()
    cut = [p.event for i, part in enumerate(parts) for p in replay(location, None, part, ddl=i == 0, resolved=i == 0)]
    assert len(parts) == 3 and sorted(map(repr, cut)) == sorted(map(repr, whole))


@pytest.mark.parametrize("uri", ["s3://bucket/cdc?protocol=csv", "local:///data/cdc?protocol=canal-json"])
def test_a_layout_given_where_messages_are_wanted_points_to_the_storage_calls(uri: str) -> None:
    with pytest.raises(cdcwire.SinkURIError, match=r"names a TiCDC storage-sink location \(files, not messages\)"):
        cdcwire.encode(uri, [])


def test_a_parameter_given_twice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(cdcwire.SinkURIError, match=r"parameter 'quote' is given twice"):
        cdcwire.read_storage(Layout(tmp_path).uri(quote="'") + "&quote=")
