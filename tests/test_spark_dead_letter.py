"""Malformed input records: fail the job with their place, or go to the dead-letter path."""

from __future__ import annotations

import pytest

from cdcwire import CdcwireError
from cdcwire import spark as cs

from spark_cases import workload_file


def _with_bad_lines(tmp_path, bad: dict[int, str]) -> str:
    good = open(workload_file(tmp_path, events=400, seed=3), encoding="utf-8").read().splitlines()
    for line_number, text in sorted(bad.items()):
        good.insert(line_number - 1, text)
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(good) + "\n", encoding="utf-8")
    return str(path)


BAD = {
    5: '{"type":"row","commit_ts":1,"schema":"s","table":"t"}',
    50: "not json at all",
    123: '{"type":"resolved","ts":-4}',
}


def test_malformed_line_fails_the_job_with_file_and_line(spark, tmp_path):
    path = _with_bad_lines(tmp_path, BAD)
    with pytest.raises(CdcwireError, match=r"mixed\.jsonl:5: line 5"):
        cs.write(cs.read_events(spark, path), f"file://{tmp_path}/out/t?protocol=open-protocol")


def test_dead_letter_takes_malformed_lines_and_the_summary_reconciles(spark, tmp_path):
    path = _with_bad_lines(tmp_path, BAD)
    dead = tmp_path / "dead"
    summary = cs.write(
        cs.read_events(spark, path, permissive=True), f"file://{tmp_path}/out/t?protocol=open-protocol", dead_letter=str(dead)
    )
    assert summary.events_in == 403
    assert summary.events_dead_lettered == 3
    assert summary.events_in == summary.events_encoded + summary.events_dead_lettered + summary.events_without_message
    assert summary.reconciles
    records = sorted(cs.read_dead_letters(dead), key=lambda r: int(r["source"].rpartition(":")[2]))
    assert [r["source"] for r in records] == ["mixed.jsonl:5", "mixed.jsonl:50", "mixed.jsonl:123"]
    assert "columns" in records[0]["reason"] and records[1]["record"] == "not json at all"
