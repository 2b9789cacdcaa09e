"""Errors keep their type across Spark: ``cs.write`` raises the cdcwire error a Spark task raised,
the same class with the same ``str()`` and attributes as ``cdcwire.encode`` / ``cdcwire.decode``
/ ``parse_sink_uri`` raise for the same input, whichever stage failed; any other failure stays
Spark's own exception. Real Spark (the session fixture), no mocks."""

from __future__ import annotations

import base64
import json
import traceback
from pathlib import Path
from collections.abc import Iterator

import pyarrow as pa
import pytest
from pyspark.sql import functions as F

import cdcwire
from cdcwire import spark as cs
from cdcwire.foundation.errors import CdcwireError, DecodeError, InvalidEventError, MessageTooLargeError, SinkURIError
from cdcwire.model.event_json import read_jsonl
from cdcwire.model.message import Message
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.spark.runtime.job_errors import MARKER, carry, cdcwire_error_in
from cdcwire.spark.writer.routing import UnplannedTopicError


from cdcwire.spark.runtime.job_errors import MARKER, carry, cdcwire_error_in, out_of_memory_in
from cdcwire.spark.writer.routing import UnplannedTopicError
from cdcwire.sinks.sink import open_sink

from spark_cases import workload_file

SMALL_MESSAGES = "protocol=open-protocol&partition-num=1&max-message-bytes=65536"


def _big_row_line(text_bytes: int = 100_000) -> str:
    """One insert into shop.orders whose c_varchar holds ``text_bytes`` bytes, as event JSON."""
    return json.dumps({
        "type": "row", "commit_ts": 470628591216885860, "schema": "shop", "table": "orders",
        "pre_columns": None,
        "columns": [
            {"name": "id", "type": "INT", "flags": 10, "value": 1, "mysql_type": "int(11)"},
            {"name": "c_varchar", "type": "VARCHAR", "flags": 64, "value": "x" * text_bytes,
             "mysql_type": "varchar(255)"},
        ],
    })


def _too_large(spark, tmp_path: Path) -> tuple[MessageTooLargeError, MessageTooLargeError]:
    """What cs.write and cdcwire.encode raise for one row over max-message-bytes."""
    line = _big_row_line()
    path = tmp_path / "big.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    uri = f"file://{tmp_path}/out/t?{SMALL_MESSAGES}"
    with pytest.raises(MessageTooLargeError) as local:
        cdcwire.encode(uri, list(read_jsonl([line])))
    with pytest.raises(MessageTooLargeError) as remote:
        cs.write(cs.read_events(spark, str(path)), uri)  # no dead-letter directory: the row fails the job
    return remote.value, local.value


def _undecodable_source(tmp_path: Path) -> tuple[str, DecodeError]:
    """A file:// source whose one message is not open-protocol, and what cdcwire.decode raises for it."""
    source = f"file://{tmp_path}/in/t?protocol=open-protocol&partition-num=1"
    config = parse_sink_uri(source)
    with open_sink(config).transport.writer(config) as writer:
        writer.write(Message("t", 0, b"not a key", b"not a value"))
    stored = list(open_sink(config).transport.reader(config).read("t", 0))
    with pytest.raises(DecodeError) as local:
        cdcwire.decode(source, stored)
    return source, local.value


def test_a_row_over_max_message_bytes_raises_message_too_large_error_as_cdcwire_encode_does(spark, tmp_path):
    remote, local = _too_large(spark, tmp_path)
    assert type(remote) is MessageTooLargeError
    assert str(remote) == str(local)


def test_a_carried_error_notes_its_stage_and_place_but_not_the_carrying_line(spark, tmp_path):
    remote, _ = _too_large(spark, tmp_path)
    notes = getattr(remote, "__notes__", [])
    assert "raised in a Spark task of the encoding stage" in notes
    assert any(n.startswith("while writing t/0 to file://") for n in notes), notes
    assert any("nothing was published" in n for n in notes), notes
    assert not any(MARKER in n for n in notes), notes


def test_an_undecodable_source_message_raises_decode_error_with_its_offset_and_part(spark, tmp_path):
    source, local = _undecodable_source(tmp_path)
    with pytest.raises(DecodeError) as remote:
        cs.write(cs.read(spark, source), f"file://{tmp_path}/out/t?protocol=craft")
    err = remote.value
    assert type(err) is DecodeError and str(err) == str(local)
    assert (err.reason, err.offset, err.part, err.where) == (local.reason, local.offset, local.part, "t/0/0")
    assert err.offset is not None and err.part is not None


def test_a_sink_uri_error_raised_on_executors_keeps_its_parameter(spark, tmp_path):
    """The dispatch rules file is gone by the time the tasks parse the sink URI (the driver's
    SinkConfig was made while it was there)."""
    rules = tmp_path / "rules.toml"
    rules.write_text('[[dispatchers]]\nmatcher = ["shop.*"]\npartition = "ts"\n', encoding="utf-8")
    config = parse_sink_uri(f"file://{tmp_path}/out/t?protocol=open-protocol&dispatch-rules={rules}")
    rules.unlink()
    with pytest.raises(SinkURIError) as local:
        parse_sink_uri(config.uri)
    events = cs.read_events(spark, workload_file(tmp_path, events=50, seed=3))
    with pytest.raises(SinkURIError) as remote:
        cs.write(events, config)
    assert remote.value.parameter == "dispatch-rules" == local.value.parameter
    assert str(remote.value) == str(local.value)


def test_an_event_of_an_unplanned_topic_raises_unplanned_topic_error(spark, tmp_path):
    """Each Spark action sees another table (the query's own timestamp), so routing meets a
    topic the planning action did not."""
    events = cs.read_events(spark, workload_file(tmp_path, events=50, seed=3))
    table = F.concat(F.lit("t"), F.unix_micros(F.current_timestamp()).cast("string"))
    changing = events.withColumn("table", F.when(F.col("table").isNotNull(), table))
    uri = f"file://{tmp_path}/out/x?protocol=open-protocol&topic-rule=t_{{schema}}_{{table}}&partition-num=1"
    with pytest.raises(UnplannedTopicError, match="which was not planned"):
        cs.write(changing, uri)


def test_a_cdcwire_error_raised_in_the_callers_own_spark_code_keeps_its_class_and_message(spark, tmp_path):
    """Raised outside cdcwire's tasks, the error is not carried: its class and message are
    rebuilt from the traceback, its attributes are what its constructor gives a message."""

    def refuse(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            raise SinkURIError("the caller's check refused it", "caller")
            yield batch

    events = cs.read_events(spark, workload_file(tmp_path, events=50, seed=3))
    with pytest.raises(SinkURIError) as remote:
        cs.write(events.mapInArrow(refuse, events.schema), f"file://{tmp_path}/out/t?protocol=open-protocol")
    assert str(remote.value) == "the caller's check refused it"
    assert remote.value.parameter is None


def test_a_failure_that_is_no_cdcwire_error_stays_a_spark_exception(spark, tmp_path):
    def fail(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            raise RuntimeError("the caller's code broke")
            yield batch

    events = cs.read_events(spark, workload_file(tmp_path, events=50, seed=3))
    with pytest.raises(Exception, match="the caller's code broke") as failure:
        cs.write(events.mapInArrow(fail, events.schema), f"file://{tmp_path}/out/t?protocol=open-protocol")
    assert not isinstance(failure.value, CdcwireError)


# --- the carrying line, as the driver finds it in a Spark exception's text (no Spark needed) ---


def _as_spark_reports(exc: BaseException) -> Exception:
    """An exception whose text is what Spark reports for ``exc`` raised in a Python worker."""
    trace = "".join(traceback.format_exception(exc))
    return Exception(f"An exception was thrown from the Python worker:\n{trace}")


def test_an_error_whose_constructor_wants_more_than_a_message_is_rebuilt_with_its_attributes():
    err = InvalidEventError("not a valid DATE", "shop.orders@7", "columns[2].value", "`d`")
    carry(err, "the routing stage")
    rebuilt = cdcwire_error_in(_as_spark_reports(err))
    assert type(rebuilt) is InvalidEventError and str(rebuilt) == str(err)
    assert vars(rebuilt) == vars(err) | {"__notes__": ["raised in a Spark task of the routing stage"]}


def test_an_error_of_a_class_the_driver_has_not_loaded_comes_back_as_a_cdcwire_error_saying_which():
    err = SinkURIError("a plugin's own refusal", "plugin-option")
    carry(err)
    shown, _, encoded = err.__notes__[-1].partition(MARKER)
    record = json.loads(base64.b64decode(encoded.rstrip("]")))
    record["module"] = "cdcwire_not_loaded_here"
    err.__notes__[-1] = shown + MARKER + base64.b64encode(json.dumps(record).encode()).decode() + "]"
    rebuilt = cdcwire_error_in(_as_spark_reports(err))
    assert type(rebuilt) is CdcwireError and str(rebuilt) == str(err)
    assert rebuilt.parameter == "plugin-option"
    said = "raised as cdcwire_not_loaded_here.SinkURIError, which the Spark driver has not loaded"
    assert said in rebuilt.__notes__


# --- a Spark action of the user's own over a cdcwire frame ---


def _failed_decode(spark, tmp_path: Path) -> tuple[Exception, DecodeError]:
    """What ``cs.decode(df, ...).collect()`` raises for a message that is not open-protocol (Spark's
    own exception: the action is the user's), and what cdcwire.decode raises for it."""
    source, local = _undecodable_source(tmp_path)
    messages = spark.createDataFrame([(b"not a key", b"not a value", "t", 0, 0)], "key binary, value binary,"
                                     " topic string, partition int, offset long")
    with pytest.raises(Exception) as remote:
        cs.decode(messages, source).collect()
    return remote.value, local


def test_a_users_failed_action_shows_the_carried_error_class_and_message_before_its_record(spark, tmp_path):
    remote, local = _failed_decode(spark, tmp_path)
    assert not isinstance(remote, CdcwireError)
    carrying = [line for line in str(remote).splitlines() if MARKER in line]
    assert carrying and carrying[-1].startswith(f"DecodeError: {' '.join(str(local).split())[:200]}")


def test_raise_carried_gives_back_the_typed_error_of_a_users_failed_action(spark, tmp_path):
    remote, local = _failed_decode(spark, tmp_path)
    with pytest.raises(DecodeError) as typed:
        cs.raise_carried(remote)
    assert str(typed.value) == str(local) and typed.value.offset == local.offset
    assert typed.value.__context__ is remote


def test_raise_carried_raises_a_failure_that_carries_no_cdcwire_error_as_it_is(spark):
    def fail(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            raise RuntimeError("the caller's code broke")
            yield batch

    frame = spark.range(3)
    with pytest.raises(Exception, match="the caller's code broke") as failure:
        frame.mapInArrow(fail, frame.schema).collect()
    with pytest.raises(type(failure.value)) as again:
        cs.raise_carried(failure.value)
    assert again.value is failure.value


# --- out of memory, from real failed jobs ---


def test_a_java_heap_overflow_is_told_as_the_jvm_out_of_memory_with_driver_memory_to_raise(spark):
    """A 2 GB string built on the driver (constant folding) fails at once with Java heap space; the
    JVM lives on. A task thread's OutOfMemoryError ends the JVM instead (exit code 52): the same line."""
    from cdcwire.cli.run_command import spark_failure

    with pytest.raises(Exception) as failure:
        spark.sql("select length(repeat('x', 2000000000)) as n").collect()
    memory = out_of_memory_in(failure.value)
    assert memory is not None and memory.where == "jvm" and memory.detail == "Java heap space"
    line = spark_failure(failure.value)
    assert line.startswith("the Spark job failed: Spark's JVM ran out of memory (Java heap space): give it more"
                           " with --driver-memory") and "\n" not in line


def test_a_python_worker_out_of_memory_is_told_so(spark):
    from cdcwire.cli.run_command import spark_failure

    def hoard(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            bytearray(1 << 50)  # a petabyte: refused at once
            yield batch

    frame = spark.range(3)
    with pytest.raises(Exception) as failure:
        frame.mapInArrow(hoard, frame.schema).collect()
    assert out_of_memory_in(failure.value).where == "python"
    assert spark_failure(failure.value).startswith("the Spark job failed: a Spark Python worker ran out of memory")


def test_a_failure_with_enough_memory_is_no_out_of_memory(spark, tmp_path):
    remote, _ = _failed_decode(spark, tmp_path)
    assert out_of_memory_in(remote) is None
