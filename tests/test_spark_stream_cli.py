"""``cdcwire run --stream``: a topic kept transcoded into another protocol, continuing from its
checkpoint across runs (each run here stops once it has caught up: ``--available-now``).

The command runs in this process, on the suite's Spark session (the CLI's session is
Spark's active one): a new JVM per run would double the time for nothing tested."""

from __future__ import annotations

import subprocess
import sys
from typing import Sequence

import cdcwire
from cdcwire import RowChangedEvent
from cdcwire.cli import main
from cdcwire.workload import Workload


def _run_stream(capsys, source: str, sink: str, checkpoint: str,
                flags: Sequence[str] = ("--max-offsets-per-trigger", "200")) -> tuple[int, str, str]:
    code = main(["run", "--stream", "--available-now", "--quiet", "--input", source, "--sink-uri", sink,
                 "--checkpoint", checkpoint, *flags])
    out, err = capsys.readouterr()
    return code, out, err


def _rows(uri: str) -> list:
    return [e for e in cdcwire.decode(uri, cdcwire.read(uri)) if isinstance(e, RowChangedEvent)]


def test_a_streaming_transcode_continues_from_its_checkpoint(spark, tmp_path, capsys) -> None:
    source = f"file://{tmp_path}/src/orders?protocol=open-protocol&partition-num=2"
    sink = f"file://{tmp_path}/dst/orders?protocol=canal-json&enable-tidb-extension=true&partition-num=2"
    checkpoint = str(tmp_path / "ckpt")
    events = list(Workload(600, seed=5))
    half = len(events) // 2
    cdcwire.write(source, cdcwire.encode(source, events[:half]))
    code, out, err = _run_stream(capsys, source, sink, checkpoint)
    assert code == 0, err
    assert "caught up" in out and "at least once" in out and "micro-batch" in err
    after_first = len(_rows(sink))
    assert after_first == len(_rows(source))
    cdcwire.write(source, cdcwire.encode(source, events[half:]))
    code, out, err = _run_stream(capsys, source, sink, checkpoint)
    assert code == 0, err
    assert len(_rows(sink)) == len(_rows(source)) > after_first  # the rest, and nothing twice


def test_run_stream_refuses_a_file_of_events_as_input(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cdcwire", "run", "--stream", "--input", str(tmp_path / "events.jsonl"),
         "--sink-uri", f"file://{tmp_path}/dst/t?protocol=craft", "--checkpoint", str(tmp_path / "c")],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode != 0 and "needs a source URI" in done.stderr and "Traceback" not in done.stderr


def test_run_stream_transcodes_a_storage_sink_layout_up_to_its_checkpoint(spark, tmp_path, capsys) -> None:
    from test_spark_materialize_storage import uri_of
    from test_storage_read import CREATE_ORDERS, order

    root = tmp_path / "layout"
    sink = f"file://{tmp_path}/dst/orders?protocol=canal-json&enable-tidb-extension=true"
    cdcwire.write_storage(uri_of(root), [CREATE_ORDERS, order(115, 7, 61), order(120, 8, 62)])
    code, out, err = _run_stream(capsys, uri_of(root), sink, str(tmp_path / "ckpt"), [])
    assert code == 0, err
    assert "caught up: 1 micro-batches" in out
    assert sorted(r.commit_ts for r in _rows(sink)) == [115, 120]


def test_run_stream_of_a_layout_refuses_a_message_cap_in_one_line(tmp_path, capsys) -> None:
    layout = f"local://{tmp_path}/layout?protocol=csv&include-commit-ts=true"
    code = main(["run", "--stream", "--input", layout, "--sink-uri", f"file://{tmp_path}/dst/t?protocol=canal-json",
                 "--checkpoint", str(tmp_path / "c"), "--max-offsets-per-trigger", "200"])
    err = capsys.readouterr().err
    assert code != 0 and err.count("\n") == 1
    assert "--max-offsets-per-trigger does not apply to a storage-sink layout" in err
