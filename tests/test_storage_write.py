"""``cdcwire.write_storage``: events laid out as TiCDC's storage sink lays them out, read back by
``cdcwire.read_storage`` as the events written, on disk and on S3, csv and canal-json."""

from __future__ import annotations

from pathlib import Path

import cdcwire
from cdcwire import ResolvedEvent, RowChangedEvent
from fixtures.s3_server import S3Bucket
from test_storage_read import CANAL, CREATE_USERS, WRITTEN, per_table, user


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


def test_a_workload_of_every_column_kind_round_trips_through_csv(tmp_path: Path) -> None:
    """Every column kind, updates with old values, DDLs: the layout gives the events back, each
    table's (and partition's) in order."""
    from cdcwire.workload import Workload

    events = list(Workload(300, seed=3))
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
