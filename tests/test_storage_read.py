"""TiCDC's storage-sink layout read back with ``cdcwire.read_storage``: canal-json files through
the canal-json plugin, and the whole reference layout on S3 (moto on 127.0.0.1) and on disk:
two table versions with an ADD COLUMN between them, a partitioned table, a replayed file and
data past the checkpoint read back as the plain in-order replay of what was written."""

from __future__ import annotations

from pathlib import Path

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag as F, ColumnType as T, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire.transports.storage.places import LayoutError
from cdcwire.transports.storage.schema_files import TableCol
from fixtures.s3_server import SECRET_KEY, S3Bucket
from storage_layout import Layout

KEY = F.HANDLE_KEY | F.PRIMARY_KEY
ID = TableCol("id", "INT", "11", nullable="false", is_pk="true")
NAME = TableCol("name", "VARCHAR", "20")
AGE = TableCol("age", "INT", "11")
CSV = {"include-commit-ts": "true", "date-separator": "day"}
DAY = "2026-11-25"


def user(ts: int, id_: int, name: str, *age: int) -> RowChangedEvent:
    cols = (Column("id", T.INT, KEY, id_, "int(11)"), Column("name", T.VARCHAR, F.NULLABLE, name, "varchar(20)"))
    return RowChangedEvent(ts, "app", "users", cols + tuple(Column("age", T.INT, F.NULLABLE, a, "int(11)") for a in age))


def order(ts: int, id_: int, partition: int) -> RowChangedEvent:
    return RowChangedEvent(ts, "app", "orders", (Column("id", T.INT, KEY, id_, "int(11)"),), table_id=partition)


CREATE_USERS = DDLEvent(100, "app", "users", "CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(20))", DDLType.CREATE_TABLE)
ADD_AGE = DDLEvent(200, "app", "users", "ALTER TABLE users ADD COLUMN age INT", DDLType.ADD_COLUMN)
CREATE_ORDERS = DDLEvent(105, "app", "orders", "CREATE TABLE orders (id INT PRIMARY KEY) PARTITION BY HASH(id)", DDLType.CREATE_TABLE)
#: What upstream did, in commit order, up to the checkpoint (250): the replay a reader must give back.
WRITTEN = [CREATE_USERS, CREATE_ORDERS, user(110, 1, "ann"), order(115, 7, 61), user(120, 2, "bob"), order(130, 8, 60),
           ADD_AGE, user(210, 3, "cy", 30), user(230, 4, "dee", 40)]
CHECKPOINT = 250


def csv_line(e: RowChangedEvent) -> str:
    op = "I" if e.is_insert else "D"
    values = ",".join(f'"{c.value}"' if isinstance(c.value, str) else str(c.value) for c in e.image)
    return f'"{op}","{e.table}","{e.schema}",{e.commit_ts},{values}'


def reference_layout(root: Path) -> Layout:
    layout = Layout(root)
    layout.schema("app", "users", 100, [ID, NAME], CREATE_USERS.query, 3)
    layout.schema("app", "users", 200, [ID, NAME, AGE], ADD_AGE.query, 5)
    layout.schema("app", "orders", 105, [ID], CREATE_ORDERS.query, 3)
    layout.data(f"app/users/100/{DAY}", 1, [csv_line(user(110, 1, "ann")), csv_line(user(120, 2, "bob"))])
    layout.data(f"app/orders/105/61/{DAY}", 1, [csv_line(order(115, 7, 61))])
    layout.data(f"app/orders/105/60/{DAY}", 1, [csv_line(order(130, 8, 60))])
    layout.data(f"app/users/200/{DAY}", 1, [csv_line(user(210, 3, "cy", 30))])
    replayed = [csv_line(user(210, 3, "cy", 30)), csv_line(user(230, 4, "dee", 40))]
    layout.data(f"app/users/200/{DAY}", 2, replayed)
    layout.data(f"app/users/200/{DAY}", 3, replayed + [csv_line(user(260, 5, "eve", 50))])  # a replay, and past the checkpoint
    layout.schema("app", "users", 300, [ID, NAME, AGE], "ALTER TABLE users ADD INDEX (age)", 7)  # past the checkpoint
    layout.checkpoint(CHECKPOINT)
    return layout


def per_table(events: list) -> dict[tuple, list]:
    """Each table's DDLs in order, and its rows in order per partition (TiCDC orders no further)."""
    tables: dict[tuple, list] = {}
    for e in events:
        if not isinstance(e, ResolvedEvent):
            tables.setdefault((e.table, "ddl" if isinstance(e, DDLEvent) else e.table_id), []).append(e)
    return tables


def test_the_reference_layout_on_disk_reads_as_the_in_order_replay(tmp_path: Path) -> None:
    events = list(cdcwire.read_storage(reference_layout(tmp_path).uri(**CSV)))
    assert per_table(events) == per_table(WRITTEN) and events[-1] == ResolvedEvent(CHECKPOINT)


def test_the_reference_layout_on_s3_reads_as_the_in_order_replay(tmp_path: Path, s3_bucket: S3Bucket) -> None:
    reference_layout(tmp_path)
    client = s3_bucket.client()
    for path in sorted(p for p in tmp_path.rglob("*") if p.is_file()):
        client.put_object(Bucket=s3_bucket.name, Key=f"cdc/{path.relative_to(tmp_path)}", Body=path.read_bytes())
    uri = s3_bucket.storage_uri("cdc") + "&protocol=csv&include-commit-ts=true&date-separator=day"
    events = list(cdcwire.read_storage(uri))
    assert per_table(events) == per_table(WRITTEN) and events[-1] == ResolvedEvent(CHECKPOINT)


def test_a_damaged_file_on_s3_is_named_without_the_secret(tmp_path: Path, s3_bucket: S3Bucket) -> None:
    reference_layout(tmp_path)
    client = s3_bucket.client()
    for path in sorted(p for p in tmp_path.rglob("*") if p.is_file()):
        body = path.read_bytes().replace(b'"dee",40', b'"dee"') if path.name == "CDC000002.csv" else path.read_bytes()
        client.put_object(Bucket=s3_bucket.name, Key=f"cdc/{path.relative_to(tmp_path)}", Body=body)
    with pytest.raises(LayoutError) as info:
        list(cdcwire.read_storage(s3_bucket.storage_uri("cdc") + "&protocol=csv&include-commit-ts=true"))
    assert str(info.value).startswith(f"app/users/200/{DAY}/CDC000002.csv:2: 6 fields")
    assert SECRET_KEY not in str(info.value)


def test_a_float_past_float32_is_named_by_path_line_and_column(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "m", 100, [ID, TableCol("f", "FLOAT")])
    layout.data("app/m/100", 1, ['"I","m","app",110,1,1.5', '"I","m","app",120,2,1e39'])
    layout.checkpoint(CHECKPOINT)
    with pytest.raises(LayoutError, match=r"^app/m/100/CDC000001.csv:2: column 'f' \(float\): float too large"):
        list(cdcwire.read_storage(layout.uri(**{"include-commit-ts": "true", "date-separator": "none"})))


CANAL = "file:///tmp/cdcwire-storage-canal/t?protocol=canal-json&enable-tidb-extension=true"


def canal_lines(events: list[RowChangedEvent]) -> list[str]:
    return [m.value.decode() for m in cdcwire.encode(CANAL + "&partition-num=1", events)]


def test_canal_json_files_read_through_the_canal_json_codec(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    rows = [user(110, 1, "ann"), user(120, 2, "bob")]
    layout.schema("app", "users", 100, [ID, NAME], CREATE_USERS.query, 3)
    layout.data("app/users/100", 1, canal_lines(rows), ext=".json")
    layout.checkpoint(CHECKPOINT)
    carried = cdcwire.open_sink(CANAL).codec.carrier(cdcwire.open_sink(CANAL).config)
    events = list(cdcwire.read_storage(layout.uri(protocol="canal-json", **{"date-separator": "none"})))
    assert events == [CREATE_USERS, *[carried(r) for r in rows], ResolvedEvent(CHECKPOINT)]


def test_a_damaged_canal_json_line_is_named_by_path_and_line(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", 100, [ID, NAME])
    layout.data("app/users/100", 1, canal_lines([user(110, 1, "ann")]) + ['{"id":0,"database":'], ext=".json")
    layout.checkpoint(CHECKPOINT)
    with pytest.raises(LayoutError, match=r"^app/users/100/CDC000001.json:2: "):
        list(cdcwire.read_storage(layout.uri(protocol="canal-json", **{"date-separator": "none"})))


def test_a_csv_file_cut_inside_its_last_field_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", 100, [ID, AGE])
    path = layout.data("app/users/100", 1, ['"I","users","app",110,1,30', '"I","users","app",120,2,19000057'])
    (tmp_path / path).write_bytes((tmp_path / path).read_bytes()[:-5])  # "057\r\n": 19000057 would read as 19000
    layout.checkpoint(CHECKPOINT)
    with pytest.raises(LayoutError, match=rf"^{path}:2: the last record does not end with the terminator"):
        list(cdcwire.read_storage(layout.uri(**{"include-commit-ts": "true", "date-separator": "none"})))


def test_a_canal_json_file_cut_before_its_last_terminator_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", 100, [ID, NAME])
    path = layout.data("app/users/100", 1, canal_lines([user(110, 1, "ann"), user(120, 2, "bob")]), ext=".json")
    (tmp_path / path).write_bytes((tmp_path / path).read_bytes()[:-1])  # the "\n" of the last "\r\n"
    layout.checkpoint(CHECKPOINT)
    with pytest.raises(LayoutError, match=rf"^{path}:2: the last line does not end with the terminator"):
        list(cdcwire.read_storage(layout.uri(protocol="canal-json", **{"date-separator": "none"})))


def test_following_a_layout_gives_new_events_as_the_checkpoint_moves(tmp_path: Path) -> None:
    layout = reference_layout(tmp_path)
    layout.checkpoint(150)
    with cdcwire.follow(layout.uri(**CSV), exit_at_end=True) as follower:
        events = follower.placed()
        first = [next(events).event for _ in range(7)]  # up to 150: 2 DDLs, 4 rows, the resolved event
        layout.checkpoint(CHECKPOINT)  # TiCDC moves on; eve (260) stays past it
        rest = [p.event for p in events]
    assert first[-1] == ResolvedEvent(150) and rest[-1] == ResolvedEvent(CHECKPOINT)
    assert per_table(first + rest) == per_table(WRITTEN)


def test_following_a_layout_refuses_what_it_does_not_have(tmp_path: Path) -> None:
    with pytest.raises(cdcwire.CdcwireError, match=r"^group: not for a storage-sink location"):
        cdcwire.follow(reference_layout(tmp_path).uri(**CSV), group="audit")


def test_the_follow_command_says_it_follows_a_layout_from_its_beginning(tmp_path: Path, capsys) -> None:
    from cdcwire.cli import main

    layout = reference_layout(tmp_path)
    assert main(["follow", "-e", layout.uri(**CSV)]) == 0
    first = capsys.readouterr().err.splitlines()[0]
    assert first == f"cdcwire follow: following local://{tmp_path} from its beginning, in replay order"


def test_the_follow_command_refuses_raw_lines_of_a_layout_naming_the_flag(tmp_path: Path, capsys) -> None:
    from cdcwire.cli import main

    assert main(["follow", "--placed", "-e", reference_layout(tmp_path).uri(**CSV)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("cdcwire follow: error: --placed: a storage-sink location has no topics, partitions or offsets")
    assert err.endswith("follow it without --placed") and "broadcast_copies" not in err


def test_no_secret_of_an_s3_location_is_shown(s3_bucket: S3Bucket) -> None:
    from cdcwire.transports.storage.location import StorageLocation

    uri = s3_bucket.storage_uri("cdc")
    assert SECRET_KEY not in repr(StorageLocation.parse(uri + "&protocol=csv"))
    for bad in (uri, uri + "&protocol=csv&delimeter=x", uri + "&protocol=csv&force-path-style=maybe"):
        with pytest.raises(cdcwire.SinkURIError) as info:
            cdcwire.read_storage(bad)
        assert SECRET_KEY not in str(info.value) and "\n" not in str(info.value)


def test_a_local_location_is_shown_as_written_in_its_errors(tmp_path: Path) -> None:
    with pytest.raises(cdcwire.SinkURIError, match=f"parameter 'protocol' is required .*\\(local://{tmp_path}\\?delimiter=x\\)"):
        cdcwire.read_storage(f"local://{tmp_path}?delimiter=x")
