"""The end of a bounded input: the core calls a decoder's optional ``finish`` there, so events
a stateful decoder still holds are given (or refused), never dropped. ``echo-held`` (see
echo_codec.py) holds every event until ``finish``."""

from __future__ import annotations

import pytest
from echo_codec import EchoHeldPlugin

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, Message, RowChangedEvent
from cdcwire.contract.registry import PluginInfo, Registry


@pytest.fixture(autouse=True)
def held_codec(echo_registry: Registry) -> None:
    echo_registry.add_plugin(EchoHeldPlugin(), PluginInfo("echo-held", "cdcwire-echo-held-test", "1.0"))


def rows(n: int) -> list[RowChangedEvent]:
    return [
        RowChangedEvent(10 + i, "db", "t", (Column("id", ColumnType.INT, ColumnFlag.PRIMARY_KEY, i),))
        for i in range(n)
    ]


def held_messages(n: int) -> list[Message]:
    return [Message(m.topic, m.partition, m.key, m.value, i) for i, m in enumerate(cdcwire.encode("echo-held", rows(n)))]


def test_decode_gives_the_events_a_stateful_decoder_holds_at_the_end_of_the_messages() -> None:
    assert cdcwire.decode("echo-held", held_messages(3)) == rows(3)


def test_a_poll_decoder_gives_what_its_decoder_holds_when_the_loop_calls_finish() -> None:
    decode = cdcwire.PollDecoder("echo-held")
    assert [e for m in held_messages(2) for e in decode(m)] == []
    assert decode.finish() == rows(2)


def test_a_decoder_without_finish_holds_nothing_at_the_end() -> None:
    messages = cdcwire.encode("echo-json", rows(2))
    assert cdcwire.decode("echo-json", messages) == rows(2)


def test_inspect_prints_what_a_stateful_decoder_holds_at_the_end_of_the_range(tmp_path, capsys) -> None:
    from cdcwire.cli import main

    uri = f"file://{tmp_path}/t?protocol=echo-held&partition-num=1"
    cdcwire.write(uri, cdcwire.encode(uri, rows(2)))
    assert main(["inspect", uri]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_the_codec_of_a_stateful_decoder_says_so_and_a_stateless_one_does_not() -> None:
    from cdcwire.sinks.sink import open_sink

    assert open_sink("echo-held").codec.stateful_decoding is True
    assert open_sink("echo-json").codec.stateful_decoding is False


def test_the_conformance_round_trip_reads_back_what_a_stateful_decoder_holds_to_the_end() -> None:
    from cdcwire.testing.conformance import round_trip

    _, back = round_trip("file:///tmp/unused/t?protocol=echo-held&partition-num=1", rows(3))
    assert back == rows(3)
