"""``cdcwire inspect`` and ``inspect -L`` read a TiCDC storage-sink layout as they read a topic:
its events as event JSON Lines, or its checkpoint, tables, versions and data files. Each command
runs as a user types it, on a layout written by ``cdcwire.write_storage``, local or on S3."""

from __future__ import annotations

from pathlib import Path

import cdcwire
from cdcwire import Column, ColumnFlag as F, ColumnType as T, ResolvedEvent, RowChangedEvent, to_json
from cdcwire.cli import main
from fixtures.s3_server import S3Bucket

PARAMS = "protocol=csv&include-commit-ts=true&date-separator=none"
TS = 415508878783938562


def row(table: str, key: int, ts: int) -> RowChangedEvent:
    return RowChangedEvent(
        commit_ts=ts, schema="app", table=table,
        columns=(Column("id", T.INT, F.HANDLE_KEY | F.PRIMARY_KEY, key), Column("v", T.VARCHAR, F.NULLABLE, f"v{key}")),
    )


EVENTS = [row("users", 1, TS), row("orders", 7, TS + 1), row("users", 2, TS + 2), ResolvedEvent(TS + 3)]


def layout(tmp_path: Path) -> str:
    uri = f"local://{tmp_path}/layout?{PARAMS}"
    cdcwire.write_storage(uri, EVENTS)
    return uri


def test_inspect_of_a_layout_prints_its_events_as_read_storage_gives_them(tmp_path, capsys):
    uri = layout(tmp_path)
    assert main(["inspect", uri]) == 0
    assert capsys.readouterr().out.splitlines() == [to_json(e) for e in cdcwire.read_storage(uri)]


def test_inspect_of_a_layout_keeps_the_tables_asked_for(tmp_path, capsys):
    uri = layout(tmp_path)
    assert main(["inspect", "--tables", "app.orders", uri]) == 0
    kept = [e for e in cdcwire.read_storage(uri) if isinstance(e, ResolvedEvent) or e.table == "orders"]
    assert [e.table for e in kept if isinstance(e, RowChangedEvent)] == ["orders"]
    assert capsys.readouterr().out.splitlines() == [to_json(e) for e in kept]


def test_inspect_list_of_a_layout_gives_checkpoint_tables_versions_and_files(tmp_path, capsys):
    uri = layout(tmp_path)
    assert main(["inspect", "-L", uri]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"layout local://{tmp_path}/layout (csv): checkpoint {TS + 3}, 2 table(s), 2 data file(s)"
    assert out[1:] == [
        "  table app.orders with 1 version(s):",
        f"    version {TS + 1}: app/orders/{TS + 1}: 1 data file(s)",
        "  table app.users with 1 version(s):",
        f"    version {TS}: app/users/{TS}: 1 data file(s)",
    ]


def test_inspect_of_a_layout_refuses_the_flags_of_topics_in_one_line(tmp_path, capsys):
    assert main(["inspect", "--partition", "0", layout(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("cdcwire inspect: error: --partition: a storage-sink layout has no topics")


def test_inspect_list_reads_a_layout_on_s3(tmp_path, s3_bucket: S3Bucket, capsys):
    layout(tmp_path)
    client = s3_bucket.client()
    for path in sorted(p for p in (tmp_path / "layout").rglob("*") if p.is_file()):
        client.put_object(Bucket=s3_bucket.name, Key=f"cdc/{path.relative_to(tmp_path / 'layout')}", Body=path.read_bytes())
    uri = s3_bucket.storage_uri("cdc") + "&" + PARAMS
    assert main(["inspect", "-L", uri]) == 0
    assert f"checkpoint {TS + 3}, 2 table(s), 2 data file(s)" in capsys.readouterr().out
    assert main(["inspect", uri]) == 0
    assert capsys.readouterr().out.splitlines() == [to_json(e) for e in cdcwire.read_storage(uri)]
