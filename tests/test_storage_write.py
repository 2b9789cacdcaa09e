"""``cdcwire.write_storage``: events laid out as TiCDC's storage sink lays them out, read back by
``cdcwire.read_storage`` as the events written, on disk and on S3, csv and canal-json."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import cdcwire
from cdcwire import CdcwireError, ResolvedEvent, RowChangedEvent
from cdcwire.large_messages.storage import PART_BYTES, Storage
from fixtures.s3_server import S3Bucket
from test_storage_read import ADD_AGE, CANAL, CREATE_USERS, WRITTEN, per_table, user


def local(root: Path, **params: str) -> str:
    return f"local://{root}?" + "&".join(f"{k}={v}" for k, v in {"protocol": "csv", "include-commit-ts": "true", **params}.items())


def test_written_events_read_back_as_they_were(tmp_path: Path) -> None:
    assert cdcwire.write_storage(local(tmp_path), [*WRITTEN, ResolvedEvent(250)]) == 6
    events = list(cdcwire.read_storage(local(tmp_path)))
    assert per_table(events) == per_table(WRITTEN) and events[-1] == ResolvedEvent(250)


def test_the_layout_is_ticdcs(tmp_path: Path) -> None:
    cdcwire.write_storage(local(tmp_path), WRITTEN)
    files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert "app/users/100/1970-01-01/CDC00000000000000000001.csv" in files
    assert "app/orders/105/61/1970-01-01/meta/CDC.index" in files
    assert "app/users/meta/schema_100_2424402532.json" in files and "metadata" in files
    assert (tmp_path / "app/users/100/1970-01-01/CDC00000000000000000001.csv").read_bytes() == (
        b'"I","users","app",110,1,"ann"\r\n"I","users","app",120,2,"bob"\r\n'
    )


def test_options_and_widths_are_written_as_asked(tmp_path: Path) -> None:
    uri = local(tmp_path, delimiter="[*]", quote="", **{"date-separator": "none", "file-index-digit": "6",
                                                         "output-field-header": "true"})
    cdcwire.write_storage(uri, [CREATE_USERS, user(110, 1, "a[*]b")])
    assert (tmp_path / "app/users/100/CDC000001.csv").read_bytes().decode() == (
        "ticdc-meta$operation[*]ticdc-meta$table[*]ticdc-meta$schema[*]ticdc-meta$commit-ts[*]id[*]name\r\n"
        "I[*]users[*]app[*]110[*]1[*]a\\[\\*\\]b\r\n"
    )
    assert [e for e in cdcwire.read_storage(uri) if isinstance(e, RowChangedEvent)] == [user(110, 1, "a[*]b")]


def test_canal_json_layouts_read_back_as_the_protocol_carries_them(tmp_path: Path) -> None:
    uri = local(tmp_path, protocol="canal-json")
    rows = [user(110, 1, "ann"), user(120, 2, "bob")]
    cdcwire.write_storage(uri, [CREATE_USERS, *rows])
    carried = cdcwire.open_sink(CANAL).codec.carrier(cdcwire.open_sink(CANAL).config)
    assert list(cdcwire.read_storage(uri)) == [CREATE_USERS, *[carried(r) for r in rows], ResolvedEvent(120)]


def test_a_layout_written_to_s3_reads_back(s3_bucket: S3Bucket) -> None:
    uri = s3_bucket.storage_uri("out") + "&protocol=csv&include-commit-ts=true"
    cdcwire.write_storage(uri, WRITTEN)
    assert "out/metadata" in s3_bucket.keys("out/")
    assert per_table(list(cdcwire.read_storage(uri))) == per_table(WRITTEN)


def whole(events: list) -> list:
    """``events`` and a resolved event at the newest commit ts: the input is whole, every row is
    under the checkpoint (a layout gives a row once a resolved ts passes it)."""
    return [*events, ResolvedEvent(max(e.commit_ts for e in events))]


def test_a_workload_of_every_column_kind_round_trips_through_csv(tmp_path: Path) -> None:
    """Every column kind, updates with old values, DDLs: the layout gives the events back, each
    table's (and partition's) in order."""
    from cdcwire.workload import Workload

    events = whole(list(Workload(300, seed=3)))
    uri = local(tmp_path, **{"output-old-value": "true"})
    cdcwire.write_storage(uri, events)
    assert per_table(list(cdcwire.read_storage(uri))) == per_table(events)


def test_a_write_into_a_layout_adds_files_after_those_it_has(tmp_path: Path) -> None:
    """A file a reader reads is never replaced: the same events written again go to the next file
    index of each directory, and read back once (replayed rows are dropped, as TiCDC's are)."""
    uri = local(tmp_path, **{"file-index-digit": "6", "date-separator": "none"})
    cdcwire.write_storage(uri, WRITTEN)
    first = (tmp_path / "app/users/100/CDC000001.csv").read_bytes()
    cdcwire.write_storage(uri, WRITTEN)
    assert (tmp_path / "app/users/100/CDC000001.csv").read_bytes() == first
    assert (tmp_path / "app/users/100/meta/CDC.index").read_text() == "CDC000002.csv\n"
    assert per_table(list(cdcwire.read_storage(uri))) == per_table(WRITTEN)


def test_a_write_of_older_events_keeps_the_newer_checkpoint(tmp_path: Path) -> None:
    uri = local(tmp_path)
    cdcwire.write_storage(uri, [CREATE_USERS, user(110, 1, "ann"), ResolvedEvent(1000)])
    cdcwire.write_storage(uri, [user(120, 2, "bob")])
    assert (tmp_path / "metadata").read_bytes() == b'{"checkpoint-ts": 1000}'
    assert [e.commit_ts for e in cdcwire.read_storage(uri)] == [100, 110, 120, 1000]


#: Five rows of app.users, 31 bytes each in csv with the commit ts.
FIVE = [user(110 + i, i, "abc") for i in range(5)]
SMALL_FILES = {"file-size": "62", "file-index-digit": "6", "date-separator": "none"}


def data_files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.glob("CDC*")) if p.is_file()}


def test_file_size_starts_the_next_data_file(tmp_path: Path) -> None:
    """A file that has reached file-size takes no more rows: five 31-byte rows at a file-size of 62
    make files of two, two and one row, and the directory's index file names the last."""
    cdcwire.write_storage(local(tmp_path, **SMALL_FILES), [CREATE_USERS, *FIVE])
    written = data_files(tmp_path / "app/users/100")
    assert {name: len(data) for name, data in written.items()} == {
        "CDC000001.csv": 62, "CDC000002.csv": 62, "CDC000003.csv": 31}
    assert written["CDC000003.csv"] == b'"I","users","app",114,4,"abc"\r\n'
    assert (tmp_path / "app/users/100/meta/CDC.index").read_text() == "CDC000003.csv\n"


def test_a_row_larger_than_file_size_has_a_file_of_its_own(tmp_path: Path) -> None:
    big = user(120, 2, "x" * 100)
    cdcwire.write_storage(local(tmp_path, **SMALL_FILES), [CREATE_USERS, user(110, 1, "ann"), big, user(130, 3, "cy")])
    written = data_files(tmp_path / "app/users/100")
    assert [data.count(b"\r\n") for data in written.values()] == [1, 1, 1]
    assert b"x" * 100 in written["CDC000002.csv"] and len(written["CDC000002.csv"]) > 62


def test_each_data_file_starts_with_the_header(tmp_path: Path) -> None:
    """The header counts toward file-size: 86 bytes of it and two 31-byte rows make a file of 148."""
    uri = local(tmp_path, **{**SMALL_FILES, "output-field-header": "true", "file-size": "148"})
    cdcwire.write_storage(uri, [CREATE_USERS, *FIVE])
    written = data_files(tmp_path / "app/users/100")
    assert [len(data) for data in written.values()] == [148, 148, 117]
    assert all(data.startswith(b"ticdc-meta$operation,") for data in written.values())
    assert [e for e in cdcwire.read_storage(uri) if isinstance(e, RowChangedEvent)] == FIVE


def test_a_layout_of_many_small_files_reads_back_as_its_events(tmp_path: Path) -> None:
    from cdcwire.workload import Workload

    events = whole(list(Workload(300, seed=3)))
    uri = local(tmp_path, **{"output-old-value": "true", "file-size": "300"})
    cdcwire.write_storage(uri, events)
    assert max(len(list(d.glob("CDC*"))) for d in tmp_path.rglob("*") if d.is_dir()) >= 5
    assert per_table(list(cdcwire.read_storage(uri))) == per_table(events)


def test_a_write_that_fails_between_files_leaves_the_layout_and_the_next_write_takes_the_next_index(
    tmp_path: Path,
) -> None:
    """The second write puts CDC000002 and fails at CDC000003 (a directory stands where it goes):
    the file the index names is as it was, nothing written aside is left, the layout reads as
    before; the next write starts again at CDC000002, and everything reads back once."""
    uri = local(tmp_path, **SMALL_FILES)
    cdcwire.write_storage(uri, [CREATE_USERS, user(105, 9, "zed")])
    users = tmp_path / "app/users/100"
    before = data_files(users)
    (users / "CDC000003.csv").mkdir()
    with pytest.raises(CdcwireError, match=r"cannot write app/users/100/CDC000003\.csv to "):
        cdcwire.write_storage(uri, [CREATE_USERS, *FIVE])
    assert data_files(users)["CDC000001.csv"] == before["CDC000001.csv"] and "CDC000002.csv" in data_files(users)
    assert (users / "meta/CDC.index").read_text() == "CDC000001.csv\n"
    assert not [p for p in tmp_path.rglob("*.tmp")]
    assert [e.commit_ts for e in cdcwire.read_storage(uri)] == [100, 105, 105]
    (users / "CDC000003.csv").rmdir()
    cdcwire.write_storage(uri, [CREATE_USERS, *FIVE])
    assert (users / "meta/CDC.index").read_text() == "CDC000004.csv\n"
    assert [e for e in cdcwire.read_storage(uri) if isinstance(e, RowChangedEvent)] == [user(105, 9, "zed"), *FIVE]


def test_a_data_file_larger_than_an_s3_part_goes_up_in_parts(s3_bucket: S3Bucket) -> None:
    uri = s3_bucket.storage_uri("out") + "&protocol=csv&include-commit-ts=true&date-separator=none"
    rows = [user(110 + i, i, "x" * 10_000) for i in range(PART_BYTES // 10_000 + 100)]
    cdcwire.write_storage(uri, [CREATE_USERS, *rows])
    key = "out/app/users/100/CDC00000000000000000001.csv"
    head = s3_bucket.client().head_object(Bucket=s3_bucket.name, Key=key)
    assert head["ContentLength"] > PART_BYTES and head["ETag"].strip('"').endswith("-2")  # a two-part upload
    assert [e for e in cdcwire.read_storage(uri) if isinstance(e, RowChangedEvent)] == rows


def test_an_s3_data_file_given_up_leaves_no_object_and_no_upload(s3_bucket: S3Bucket) -> None:
    client = s3_bucket.client()
    writer = Storage.parse(s3_bucket.storage_uri("out"), "uri").writer("app/users/100/CDC000001.csv")
    writer.write(b"x" * (PART_BYTES + 1))
    assert client.list_multipart_uploads(Bucket=s3_bucket.name).get("Uploads")  # a part went up
    writer.abort()
    assert s3_bucket.keys() == [] and not client.list_multipart_uploads(Bucket=s3_bucket.name).get("Uploads")


def renamed(event: RowChangedEvent, schema: str = "app", table: str = "users") -> RowChangedEvent:
    return RowChangedEvent(event.commit_ts, schema, table, event.columns, event.pre_columns, event.table_id)


#: Schema and table names that cannot be one directory of a layout (TiCDC joins them unescaped).
UNWRITABLE_NAMES = [("app", "../../escape_t"), ("../../escape_s", "users"), ("app", "a/b"), ("app", "/tmp/x"),
                    ("app", ".."), (".", "users"), ("", "users"), ("app", "")]


@pytest.mark.parametrize("schema, table", UNWRITABLE_NAMES)
def test_a_name_that_cannot_be_a_directory_is_refused_before_anything_is_written(
    tmp_path: Path, schema: str, table: str
) -> None:
    root = tmp_path / "deep" / "root"
    events = [user(110, 1, "ann"), renamed(user(120, 2, "bob"), schema, table), ResolvedEvent(130)]
    with pytest.raises(CdcwireError) as info:
        cdcwire.write_storage(local(root), events)
    assert f"name {(table if schema == 'app' else schema)!r} of table " in str(info.value)
    assert "\n" not in str(info.value)
    assert [p for p in tmp_path.rglob("*")] == []


def test_a_database_ddl_of_a_name_that_cannot_be_a_directory_is_refused(tmp_path: Path) -> None:
    from cdcwire import DDLEvent, DDLType

    with pytest.raises(CdcwireError, match=r"^schema name '\.\.' of the database DDL at 100 "):
        cdcwire.write_storage(local(tmp_path), [DDLEvent(100, "..", "", "CREATE DATABASE x", DDLType.CREATE_SCHEMA)])
    assert list(tmp_path.iterdir()) == []


def test_a_name_that_cannot_be_a_directory_is_refused_on_s3(s3_bucket: S3Bucket) -> None:
    uri = s3_bucket.storage_uri("out") + "&protocol=csv&include-commit-ts=true"
    with pytest.raises(CdcwireError, match=r"table name '\.\./\.\./escape_t' of table app\.\.\./\.\./escape_t holds"):
        cdcwire.write_storage(uri, [user(110, 1, "ann"), renamed(user(120, 2, "bob"), table="../../escape_t")])
    assert s3_bucket.keys() == []


def test_names_with_dots_and_spaces_inside_are_written_and_read_back(tmp_path: Path) -> None:
    rows = [renamed(user(110, 1, "ann"), "my db", "t.1"), renamed(user(120, 2, "bob"), "my db", "...x")]
    cdcwire.write_storage(local(tmp_path), [*rows, ResolvedEvent(130)])
    assert [e for e in cdcwire.read_storage(local(tmp_path)) if isinstance(e, RowChangedEvent)] == rows


@pytest.mark.parametrize("named", ["CDC1.json", "cdc000001.json", "CDC000005.xxx", "CDChello.json", "CDC000005.csv"])
def test_an_index_file_naming_no_data_file_of_the_layout_is_refused_naming_it(tmp_path: Path, named: str) -> None:
    """TiCDC's ``FetchIndexFromFileName`` refuses these (``ErrStorageSinkInvalidFileName``): a
    count started again at 1 would write over the directory's files."""
    uri = local(tmp_path, protocol="canal-json", **{"file-index-digit": "6", "date-separator": "none"})
    cdcwire.write_storage(uri, [CREATE_USERS, user(110, 1, "ann"), ResolvedEvent(110)])
    (tmp_path / "app/users/100/meta/CDC.index").write_text(named + "\n")
    first = (tmp_path / "app/users/100/CDC000001.json").read_bytes()
    with pytest.raises(CdcwireError, match=rf"^app/users/100/meta/CDC\.index: index file names '{re.escape(named)}', "):
        cdcwire.write_storage(uri, [user(120, 2, "bob"), ResolvedEvent(120)])
    assert (tmp_path / "app/users/100/CDC000001.json").read_bytes() == first
    assert sorted(p.name for p in (tmp_path / "app/users/100").iterdir()) == ["CDC000001.json", "meta"]


APPENDED = {"file-index-digit": "6", "date-separator": "none"}


def test_the_checkpoint_is_the_newest_resolved_ts_not_a_newer_commit_ts(tmp_path: Path) -> None:
    """TiCDC's checkpoint is the resolved ts its flush reached: a row past it waits for a later one."""
    uri = local(tmp_path)
    cdcwire.write_storage(uri, [CREATE_USERS, user(110, 1, "ann"), ResolvedEvent(115), user(120, 2, "bob")])
    assert (tmp_path / "metadata").read_bytes() == b'{"checkpoint-ts": 115}'
    assert [e.commit_ts for e in cdcwire.read_storage(uri)] == [100, 110, 115]


def test_an_input_cut_inside_a_transaction_is_continued_by_the_next_write(tmp_path: Path) -> None:
    """The first write ends inside the transaction at 120; the second brings its other row: both
    rows of 120 are read, after a checkpoint that passes them, from one directory."""
    uri = local(tmp_path, **APPENDED)
    cdcwire.write_storage(uri, [CREATE_USERS, user(110, 1, "ann"), ResolvedEvent(110), user(120, 2, "bob")])
    cdcwire.write_storage(uri, [user(120, 3, "cy"), ResolvedEvent(130)])
    assert [e for e in cdcwire.read_storage(uri) if isinstance(e, RowChangedEvent)] == [
        user(110, 1, "ann"), user(120, 2, "bob"), user(120, 3, "cy")]
    assert sorted(p.name for p in (tmp_path / "app/users/100").glob("CDC*")) == ["CDC000001.csv", "CDC000002.csv"]


def test_an_append_without_a_ddl_continues_the_tables_version(tmp_path: Path) -> None:
    """TiCDC starts a table version only on a DDL: rows appended later land in the version's
    directory, and the table keeps its one schema file."""
    uri = local(tmp_path, **APPENDED)
    cdcwire.write_storage(uri, [CREATE_USERS, user(110, 1, "ann"), ResolvedEvent(110)])
    schema_files = sorted((tmp_path / "app/users/meta").iterdir())
    cdcwire.write_storage(uri, [user(120, 2, "bob"), ResolvedEvent(120)])
    assert sorted((tmp_path / "app/users/meta").iterdir()) == schema_files
    assert (tmp_path / "app/users/100/meta/CDC.index").read_text() == "CDC000002.csv\n"
    assert [e.commit_ts for e in cdcwire.read_storage(uri)] == [100, 110, 120, 120]


def test_an_append_of_a_table_without_any_ddl_keeps_its_first_version(tmp_path: Path) -> None:
    uri = local(tmp_path, **APPENDED)
    cdcwire.write_storage(uri, [user(110, 1, "ann"), ResolvedEvent(110)])
    cdcwire.write_storage(uri, [user(120, 2, "bob"), ResolvedEvent(120)])
    assert [p.name for p in (tmp_path / "app/users").iterdir() if p.name != "meta"] == ["110"]
    assert len(list((tmp_path / "app/users/meta").iterdir())) == 1


def test_a_ddl_in_an_append_starts_a_new_version(tmp_path: Path) -> None:
    uri = local(tmp_path, **APPENDED)
    cdcwire.write_storage(uri, [CREATE_USERS, user(110, 1, "ann"), ResolvedEvent(110)])
    cdcwire.write_storage(uri, [ADD_AGE, user(210, 3, "cy", 30), ResolvedEvent(210)])
    assert sorted(p.name for p in (tmp_path / "app/users").iterdir()) == ["100", "200", "meta"]
    assert [e for e in cdcwire.read_storage(uri) if not isinstance(e, ResolvedEvent)] == [
        CREATE_USERS, user(110, 1, "ann"), ADD_AGE, user(210, 3, "cy", 30)]
