"""``cs.write`` of an event DataFrame to a TiCDC storage-sink layout: the files ``cdcwire.write_storage``
writes for the same events, byte for byte, with the data files written by the executors; read back
by ``cs.read`` as the events; a failed write leaves the layout at its old checkpoint."""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

import cdcwire
from cdcwire import CdcwireError, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.spark.rows.arrow_events import batch_to_events
from cdcwire.spark.rows.schema import EVENT_COLUMNS
from cdcwire.workload import Workload
from fixtures.s3_server import SECRET_KEY, S3Bucket
from test_storage_read import CREATE_USERS, WRITTEN, user

#: A generated workload (every column kind, an ADD COLUMN between two versions of shop.orders)
#: and the reference's tables: app.users with an ADD COLUMN, app.orders partitioned.
EVENTS = [*Workload(120, seed=5, ddl_every=30), *WRITTEN, ResolvedEvent(1 << 62)]
CSV = "protocol=csv&include-commit-ts=true&output-old-value=true"


def events_df(spark, tmp_path: Path, events: list):
    path = tmp_path / "events.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        cdcwire.write_jsonl(events, out)
    return cs.read_events(spark, str(path))


def per_table(events: list) -> dict[tuple, list]:
    """Each table's DDLs in order, and its rows in order per partition (a layout orders no further)."""
    tables: dict[tuple, list] = {}
    for e in events:
        if not isinstance(e, ResolvedEvent):
            tables.setdefault((e.schema, e.table, "ddl" if isinstance(e, DDLEvent) else e.table_id), []).append(e)
    return tables


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_csv_layout_is_the_python_writers_byte_for_byte(spark, tmp_path: Path) -> None:
    summary = cs.write(events_df(spark, tmp_path, EVENTS), f"local://{tmp_path}/spark?{CSV}")
    cdcwire.write_storage(f"local://{tmp_path}/python?{CSV}", EVENTS)
    written = files(tmp_path / "spark")
    assert written == files(tmp_path / "python")
    assert "app/orders/105/61/1970-01-01/meta/CDC.index" in written and summary.reconciles
    assert len([p for p in written if p.startswith("shop/orders/meta/schema_")]) == 2


def test_a_canal_json_layout_is_the_python_writers_but_for_the_encoding_time(spark, tmp_path: Path) -> None:
    """canal-json's ``ts`` is the time the line was encoded (TiCDC's too): the rest is the same bytes."""
    cs.write(events_df(spark, tmp_path, EVENTS), f"local://{tmp_path}/spark?protocol=canal-json")
    cdcwire.write_storage(f"local://{tmp_path}/python?protocol=canal-json", EVENTS)

    def untimed(layout: dict[str, bytes]) -> dict[str, bytes]:
        return {path: re.sub(rb',"ts":\d+,', b',"ts":0,', data) for path, data in layout.items()}

    written = files(tmp_path / "spark")
    assert any(p.endswith(".json") and "/meta/" not in p for p in written)
    assert untimed(written) == untimed(files(tmp_path / "python"))


def test_the_sink_uri_options_of_the_python_writer_apply(spark, tmp_path: Path) -> None:
    options = ("protocol=csv&delimiter=[*]&quote=&null=NULL&date-separator=month&file-index-digit=6"
               "&output-field-header=true&binary-encoding-method=hex&enable-partition-separator=false&terminator=%0A")
    cs.write(events_df(spark, tmp_path, EVENTS), f"local://{tmp_path}/spark?{options}")
    cdcwire.write_storage(f"local://{tmp_path}/python?{options}", EVENTS)
    written = files(tmp_path / "spark")
    assert "app/orders/105/1970-01/CDC000001.csv" in written
    assert written["app/users/100/1970-01/CDC000001.csv"].startswith(b"ticdc-meta$operation[*]")
    assert written == files(tmp_path / "python")


def test_the_layout_reads_back_with_cs_read_as_the_events(spark, tmp_path: Path) -> None:
    uri = f"local://{tmp_path}/layout?{CSV}"
    cs.write(events_df(spark, tmp_path, EVENTS), uri)
    back = [e for b in cs.read(spark, uri).select(*(f"`{c}`" for c in EVENT_COLUMNS)).toArrow().to_batches()
            for e in batch_to_events(b)]
    assert per_table(back) == per_table(EVENTS) and ResolvedEvent(1 << 62) in back


def test_a_layout_written_to_s3_is_the_local_one(spark, tmp_path: Path, s3_bucket: S3Bucket) -> None:
    df = events_df(spark, tmp_path, WRITTEN)
    summary = cs.write(df, s3_bucket.storage_uri("cdc") + f"&{CSV}")
    cs.write(df, f"local://{tmp_path}/local?{CSV}")
    client = s3_bucket.client()
    on_s3 = {key[len("cdc/"):]: client.get_object(Bucket=s3_bucket.name, Key=key)["Body"].read()
             for key in s3_bucket.keys("cdc/")}
    assert on_s3 == files(tmp_path / "local") and SECRET_KEY not in summary.report()


def test_a_write_that_fails_in_a_task_leaves_the_old_checkpoint(spark, tmp_path: Path) -> None:
    uri = f"local://{tmp_path}/layout?{CSV}"
    cs.write(events_df(spark, tmp_path, WRITTEN), uri)
    before = files(tmp_path / "layout")
    (tmp_path / "layout/app/users/500").write_text("a file where a table version's directory goes")
    later = [user(505, 9, "zed"), DDLEvent(500, "app", "users", "ALTER TABLE users DROP COLUMN age", DDLType.DROP_COLUMN),
             RowChangedEvent(510, "app", "items", user(510, 1, "i").columns)]
    with pytest.raises(CdcwireError, match="cannot write app/users/500/") as info:
        cs.write(events_df(spark, tmp_path, later), uri)
    assert "a reader reads the layout up to its old checkpoint" in "\n".join(info.value.__notes__)
    assert {p: d for p, d in files(tmp_path / "layout").items() if p in before} == before
    assert per_table(list(cdcwire.read_storage(uri))) == per_table(WRITTEN)


def test_a_malformed_record_fails_the_write_naming_it_and_publishes_nothing(spark, tmp_path: Path) -> None:
    insert_without_columns = {"kind": "insert", "commit_ts": Decimal(110), "schema": "app", "table": "users"}
    df = spark.createDataFrame([insert_without_columns], schema=cs.EVENT_SCHEMA)
    with pytest.raises(CdcwireError, match=r"malformed input record at input row \d+ .*: kind 'insert' needs columns"):
        cs.write(df, f"local://{tmp_path}/layout?{CSV}")
    assert not (tmp_path / "layout/metadata").exists()


def test_dead_letters_are_refused_for_a_layout(spark, tmp_path: Path) -> None:
    with pytest.raises(CdcwireError, match="a storage-sink layout has no dead letters"):
        cs.write(events_df(spark, tmp_path, WRITTEN), f"local://{tmp_path}/layout?{CSV}", dead_letter=str(tmp_path))


def data_file_counts(layout: dict[str, bytes]) -> dict[str, int]:
    """How many data files each data directory of a layout has."""
    counts: dict[str, int] = {}
    for path in layout:
        directory, _, name = path.rpartition("/")
        if name.startswith("CDC") and "/meta" not in path:
            counts[directory] = counts.get(directory, 0) + 1
    return counts


def test_both_writers_start_the_next_file_at_file_size_alike(spark, tmp_path: Path) -> None:
    uri = f"{CSV}&file-size=300"
    summary = cs.write(events_df(spark, tmp_path, EVENTS), f"local://{tmp_path}/spark?{uri}")
    cdcwire.write_storage(f"local://{tmp_path}/python?{uri}", EVENTS)
    written = files(tmp_path / "spark")
    assert written == files(tmp_path / "python")
    counts = data_file_counts(written)
    assert max(counts.values()) >= 5 and summary.data_files == sum(counts.values())
    rows_in = Counter(p.place.path for p in cdcwire.read_storage_placed(f"local://{tmp_path}/spark?{uri}")
                      if isinstance(p.event, RowChangedEvent))
    assert all(len(written[path]) <= 300 or rows == 1 for path, rows in rows_in.items())  # a larger row: alone


def test_a_layout_of_small_files_reads_back_with_cs_read_as_the_events(spark, tmp_path: Path) -> None:
    uri = f"local://{tmp_path}/layout?{CSV}&file-size=200"
    cs.write(events_df(spark, tmp_path, EVENTS), uri)
    back = [e for b in cs.read(spark, uri).select(*(f"`{c}`" for c in EVENT_COLUMNS)).toArrow().to_batches()
            for e in batch_to_events(b)]
    assert max(data_file_counts(files(tmp_path / "layout")).values()) >= 5
    assert per_table(back) == per_table(EVENTS)


def test_a_task_that_fails_between_files_leaves_the_layout_and_the_next_write_takes_the_next_index(
    spark, tmp_path: Path
) -> None:
    """The task puts CDC000002 and fails at CDC000003 (a directory stands where it goes): the file
    the index names is as it was, nothing written aside is left, the layout reads as before; the
    next write starts again at CDC000002."""
    uri = f"local://{tmp_path}/layout?{CSV}&file-size=74&file-index-digit=6&date-separator=none"
    users = tmp_path / "layout/app/users/100"
    cs.write(events_df(spark, tmp_path, [CREATE_USERS, user(105, 9, "zed")]), uri)
    first = (users / "CDC000001.csv").read_bytes()
    (users / "CDC000003.csv").mkdir()
    five = [CREATE_USERS, *(user(110 + i, i, "abc") for i in range(5))]  # 37 bytes a row: two a file
    with pytest.raises(CdcwireError, match=r"cannot write app/users/100/CDC000003\.csv to "):
        cs.write(events_df(spark, tmp_path, five), uri)
    assert (users / "CDC000001.csv").read_bytes() == first and (users / "CDC000002.csv").is_file()
    assert (users / "meta/CDC.index").read_text() == "CDC000001.csv\n"
    assert not list((tmp_path / "layout").rglob("*.tmp"))
    assert [e.commit_ts for e in cdcwire.read_storage(uri)] == [100, 105, 105]
    (users / "CDC000003.csv").rmdir()
    cs.write(events_df(spark, tmp_path, five), uri)
    assert (users / "meta/CDC.index").read_text() == "CDC000004.csv\n"
    assert [e for e in cdcwire.read_storage(uri) if isinstance(e, RowChangedEvent)] == [user(105, 9, "zed"), *five[1:]]


def test_cdcwire_run_transcodes_a_topic_into_a_layout(spark, tmp_path: Path, capsys) -> None:
    from cdcwire.cli import main

    topic = f"file://{tmp_path}/src/app?protocol=canal-json&enable-tidb-extension=true&partition-num=1"
    cdcwire.write(topic, cdcwire.encode(topic, WRITTEN))
    layout = f"local://{tmp_path}/layout?protocol=csv&include-commit-ts=true"
    assert main(["run", "--input", topic, "--sink-uri", layout]) == 0, capsys.readouterr().err
    assert "reconciled" in capsys.readouterr().out
    rows = [(e.table, e.commit_ts) for e in cdcwire.read_storage(layout) if isinstance(e, RowChangedEvent)]
    assert sorted(rows) == sorted((e.table, e.commit_ts) for e in WRITTEN if isinstance(e, RowChangedEvent))


def test_cdcwire_run_into_a_layout_refuses_a_dead_letter_directory_in_one_line(tmp_path: Path, capsys) -> None:
    from cdcwire.cli import main

    layout = f"local://{tmp_path}/layout?protocol=csv"
    assert main(["run", "--input", str(tmp_path), "--sink-uri", layout, "--dead-letter", str(tmp_path / "dl")]) == 2
    err = capsys.readouterr().err
    assert "--dead-letter does not apply to a storage-sink layout" in err and len(err.strip().splitlines()) == 1


def escaping(event: RowChangedEvent) -> RowChangedEvent:
    """``event`` of a table named ``../../escape_t``: no directory of a layout can hold it."""
    return RowChangedEvent(event.commit_ts, event.schema, "../../escape_t", event.columns)


def test_a_table_name_that_cannot_be_a_directory_fails_cs_write_before_anything_is_written(
    spark, tmp_path: Path
) -> None:
    df = events_df(spark, tmp_path, [user(110, 1, "ann"), escaping(user(120, 2, "bob")), ResolvedEvent(130)])
    with pytest.raises(CdcwireError, match=r"table name '\.\./\.\./escape_t' of table app\.\.\./\.\./escape_t holds"):
        cs.write(df, f"local://{tmp_path}/deep/layout?{CSV}")
    assert not (tmp_path / "deep").exists() and not (tmp_path / "escape_t").exists()


def test_cdcwire_run_refuses_a_table_name_that_cannot_be_a_directory_in_one_line(
    spark, tmp_path: Path, capsys
) -> None:
    """The names are known once the input is decoded: the write's first job (its survey) refuses
    them. The command takes the suite's running session (a JVM of its own took most of the time)."""
    from cdcwire.cli import main

    topic = f"file://{tmp_path}/src/app?protocol=canal-json&enable-tidb-extension=true&partition-num=1"
    cdcwire.write(topic, cdcwire.encode(topic, [user(110, 1, "ann"), escaping(user(120, 2, "bob"))]))
    layout = f"local://{tmp_path}/deep/layout?protocol=csv&include-commit-ts=true"
    assert main(["run", "--quiet", "--input", topic, "--sink-uri", layout]) != 0  # no progress lines
    err = capsys.readouterr().err
    assert "table name '../../escape_t'" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "deep").exists() and not (tmp_path / "escape_t").exists()


def test_an_append_by_cs_write_continues_the_tables_version_up_to_the_newest_resolved_ts(
    spark, tmp_path: Path
) -> None:
    """As TiCDC: no new table version without a DDL, and the checkpoint is the resolved ts reached
    (the row at 130, past it, waits in its file for a later checkpoint)."""
    uri = f"local://{tmp_path}/layout?{CSV}&date-separator=none&file-index-digit=6"
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    cs.write(events_df(spark, tmp_path / "a", [CREATE_USERS, user(110, 1, "ann"), ResolvedEvent(110)]), uri)
    summary = cs.write(events_df(spark, tmp_path / "b", [user(120, 2, "bob"), ResolvedEvent(125), user(130, 3, "cy")]),
                       uri)
    users = tmp_path / "layout/app/users"
    assert summary.checkpoint == 125 and sorted(p.name for p in users.iterdir()) == ["100", "meta"]
    assert len(list((users / "meta").iterdir())) == 1
    assert (users / "100/meta/CDC.index").read_text() == "CDC000002.csv\n"
    assert [e.commit_ts for e in cdcwire.read_storage(uri) if isinstance(e, RowChangedEvent)] == [110, 120]
