"""A sink written in one protocol and read with another: the decode error says which installed
protocol reads the message, alike for cdcwire.decode, cdcwire inspect and cs.read."""

from __future__ import annotations

import os
import subprocess
import sys
from itertools import permutations

import pytest

import cdcwire
from cdcwire import spark as cs
from cdcwire.spark.runtime.job_errors import cdcwire_error_in
from cdcwire.workload import Workload

BUILT_IN = ["canal-json", "open-protocol", "craft"]


def events():
    return list(Workload(20, seed=7))


@pytest.mark.parametrize(("written", "read"), list(permutations(BUILT_IN, 2)),
                         ids=[f"{w}-read-as-{r}" for w, r in permutations(BUILT_IN, 2)])
def test_a_message_read_with_another_protocol_names_the_protocol_it_is_in(written, read):
    messages = cdcwire.encode(written, events())
    with pytest.raises(cdcwire.DecodeError) as caught:
        cdcwire.decode(read, messages)
    hint = f"this looks like {written} (read it with protocol={written})"
    assert caught.value.hint == hint
    assert str(caught.value).endswith(f"; {hint}") and "\n" not in str(caught.value)


def test_the_first_message_of_an_open_protocol_sink_read_as_canal_json_keeps_its_place_and_reason():
    messages = cdcwire.encode("open-protocol", events())
    with pytest.raises(cdcwire.DecodeError) as caught:
        cdcwire.decode("canal-json", messages)
    err = caught.value
    assert str(err).startswith(f"{messages[0].location()}: canal-json value is not valid JSON")
    assert err.where == messages[0].location() and err.part == "value"


def test_a_message_no_installed_protocol_reads_gets_no_hint():
    with pytest.raises(cdcwire.DecodeError) as caught:
        cdcwire.decode("open-protocol", [cdcwire.Message("t", 0, b"not a key", b"not a value")])
    assert caught.value.hint is None and "looks like" not in str(caught.value)


def written_sink(tmp_path, protocol: str) -> None:
    cdcwire.write(f"file://{tmp_path}/orders?protocol={protocol}&partition-num=1",
                  cdcwire.encode(f"file://{tmp_path}/orders?protocol={protocol}&partition-num=1", events()))


def test_cdcwire_inspect_of_a_craft_sink_read_as_open_protocol_says_it_is_craft(tmp_path):
    written_sink(tmp_path, "craft")
    done = subprocess.run(
        [sys.executable, "-m", "cdcwire", "inspect", f"file://{tmp_path}/orders?protocol=open-protocol"],
        capture_output=True, text=True, env=os.environ.copy(),
    )
    assert done.returncode != 0
    (line,) = done.stderr.strip().splitlines()
    assert line.endswith("this looks like craft (read it with protocol=craft)"), line


def test_cs_read_of_a_canal_json_sink_read_as_open_protocol_fails_saying_it_is_canal_json(spark, tmp_path):
    written_sink(tmp_path, "canal-json")
    with pytest.raises(Exception) as caught:  # Spark's exception: the task failed (FAILFAST)
        cs.read(spark, f"file://{tmp_path}/orders?protocol=open-protocol").collect()
    hint = "this looks like canal-json (read it with protocol=canal-json)"
    assert hint in str(caught.value)
    err = cdcwire_error_in(caught.value)
    assert isinstance(err, cdcwire.DecodeError) and err.hint == hint
    assert str(err).startswith("orders/0/0: key is 0 bytes, shorter than the 8-byte protocol version")
