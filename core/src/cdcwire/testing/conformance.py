"""A conformance suite any codec can run: subclass ``CodecConformance`` in a test module.

    from cdcwire.testing.conformance import CodecConformance

    class TestMyCodec(CodecConformance):
        sink_uri = "file:///tmp/conformance/t?protocol=my-codec"

Override the ``conformance_uri`` fixture instead when the URI needs another
fixture (a registry URL, say). The suite checks what every protocol promises:
decode(encode(events)) equals what the codec says it carries, for every column
type, and every event the check accepts (bare or absent type texts too) reads back with the
same plugin; messages respect max-message-bytes; payload event counts reconcile; a
truncated, mutated or random message raises DecodeError and nothing else, and
what it does decode to passes :func:`cdcwire.model.validation.check_event`.

Encoders and decoders are taken through :mod:`cdcwire.api.codec_calls`, as every path of
the core takes them.
"""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..contract.codec import Encoder
from ..api.codec_calls import decoder_for, encode_batches, encoder_for
from ..model.event_batch import EventBatch
from ..values.type_codes import DDLType
from ..foundation.errors import DecodeError, EncodeError, InvalidEventError, MessageTooLargeError, SinkURIError
from ..model.events import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent
from ..large_messages.claim_check import read_claim_check_object
from ..foundation.params import LARGE_MESSAGE_HANDLE_OPTION
from ..values.type_codes import ColumnFlag, ColumnType
from ..model.message import Message, Payload
from ..sinks.sink import Sink, SinkLike, open_sink
from ..model.validation import check_event
from .accepted_events import accepted_rows
from .broken_events import Broken, broken_events
from .mutations import mutated
from .strategies import COLUMN_KINDS, TableSpec, all_types_table, event_batches, row_events

#: The columnar-path checks: each example encodes or decodes twice, so fewer suffice.
_COLUMNAR_SETTINGS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


def round_trip(
    target: SinkLike, events: list[Event], partition: int = 0
) -> tuple[list[Message], list[Event]]:
    """Encode events as one topic-partition of ``target`` (a sink, config or URI) and decode
    the messages back."""
    sink = open_sink(target)
    encoder = encoder_for(sink, sink.topic, partition)
    payloads = list(encoder.encode(events))
    messages = [Message(sink.topic, partition, p.key, p.value, i) for i, p in enumerate(payloads)]
    decoder = decoder_for(sink)
    back: list[Event] = []
    for m in messages:
        back.extend(decoder.decode(m))
    back.extend(decoder.finish())  # a whole stream: a stateful decoder holds nothing back at its end
    return messages, back


def columnar_and_event_payloads(
    make_encoder: Any, events: list[Event], batch_size: int = 3
) -> tuple[list[Payload], list[Payload]]:
    """The payloads of ``events`` through the columnar path (EventBatches of ``batch_size``
    events, see :func:`cdcwire.api.codec_calls.encode_batches`) and through the Event path, each
    from a fresh encoder of ``make_encoder()``. A codec keeps its promise when they are equal."""
    batches = [EventBatch.of_events(events[i : i + batch_size]) for i in range(0, len(events), batch_size)]
    columnar = list(encode_batches(make_encoder(), batches))
    return columnar, list(make_encoder().encode(events))


def assert_columnar_encoding_matches(make_encoder: Any, events: list[Event], batch_size: int = 3) -> None:
    """Both paths give the same payloads, or raise the same error (a row too large even as its
    key, a keyless table under a key-only option) with the same text."""
    try:
        by_event = list(make_encoder().encode(events))
    except Exception as exc:
        with pytest.raises(type(exc)) as info:
            columnar_and_event_payloads(make_encoder, events, batch_size)
        assert str(info.value) == str(exc)
        return
    columnar, _ = columnar_and_event_payloads(make_encoder, events, batch_size)
    assert columnar == by_event


def check_columnar_encoding_on_mixed_batches(make_encoder: Any, max_examples: int = 25) -> None:
    """:func:`assert_columnar_encoding_matches` over generated mixed batches cut into EventBatches
    of 1 to 6 events: for a plugin's own tests of the options that change which path a row takes."""

    @settings(max_examples=max_examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(event_batches(), st.integers(1, 6))
    def check(events: list[Event], batch_size: int) -> None:
        assert_columnar_encoding_matches(make_encoder, events, batch_size)

    check()


def columnar_and_event_decoding(target: SinkLike, messages: list[Message]) -> tuple[list[Event], list[Event]]:
    """The events of ``messages`` through the codec's columnar decoder (``decode_into`` one
    EventBatch, when the codec has the capability; else ``decode``) and through ``decode``,
    each from a fresh decoder; a message that raises DecodeError on either path must raise
    it on both and add nothing to the batch. A codec keeps its promise when they are equal."""
    sink = open_sink(target)
    columnar, by_event = sink.codec.decoder(sink.config), sink.codec.decoder(sink.config)
    batch = EventBatch.empty()
    events: list[Event] = []
    for m in messages:
        before = len(batch)
        try:
            events.extend(by_event.decode(m))
        except DecodeError:
            with pytest.raises(DecodeError):
                _decode_into(columnar, m, batch)
            assert len(batch) == before, "decode_into added events for a message it refused"
            continue
        assert _decode_into(columnar, m, batch) == len(batch) - before
    try:  # the end of the input: both paths give the same held events, or both refuse them
        events.extend(_finished(by_event))
    except DecodeError:
        with pytest.raises(DecodeError):
            _finished(columnar)
    else:
        for e in _finished(columnar):
            batch.append(e)
    return list(batch.events()), events


def _finished(decoder: Any) -> list[Event]:
    """What a stateful decoder (:class:`cdcwire.contract.codec.FinishingDecoder`) still holds at the end."""
    return decoder.finish() if hasattr(decoder, "finish") else []


def _decode_into(decoder: Any, message: Message, batch: EventBatch) -> int:
    if hasattr(decoder, "decode_into"):
        return decoder.decode_into(message, batch)
    events = decoder.decode(message)
    for e in events:
        batch.append(e)
    return len(events)


def decoded_or_refused(decoder: Any, message: Message) -> list[Event]:
    """What the decoder makes of a message: its events, each checked valid, or [] for a
    DecodeError; any other exception fails the caller's test."""
    try:
        events = decoder.decode(message)
    except DecodeError:
        return []
    for event in events:
        check_event(event)
    return events


def expected(target: SinkLike, events: list[Event]) -> list[Event]:
    """What reading back ``events`` gives, as the sink's codec says it carries them."""
    sink = open_sink(target)
    carry = sink.codec.carrier(sink.config)
    out = []
    for e in events:
        c = carry(e)
        if c is not None:
            out.append(c)
    return out


class CodecConformance:
    """Mix-in test class: set ``sink_uri`` (or override the ``conformance_uri`` fixture)."""

    sink_uri: str = ""

    @pytest.fixture
    def conformance_uri(self) -> str:
        if not self.sink_uri:
            raise AssertionError("set sink_uri on the test class or override the conformance_uri fixture")
        return self.sink_uri

    @pytest.fixture
    def sink(self, conformance_uri: str) -> Sink:
        return open_sink(conformance_uri)

    def encoder_under_test(self, sink: Sink) -> Encoder:
        """The encoder the columnar and Event paths are compared on (valid events only). A codec
        whose messages hold the wall clock overrides this to give the encoder a fixed clock."""
        return encoder_for(sink, sink.topic, 0, events_checked=True)

    def with_params(self, sink: Sink, **params: Any) -> Sink:
        """The sink with these parameters (``_`` for ``-`` in names), each replacing the URI's own."""
        names = {k.replace("_", "-"): v for k, v in params.items()}
        base, _, query = sink.config.uri.partition("?")
        kept = [pair for pair in query.split("&") if pair and pair.split("=", 1)[0] not in names]
        extra = [f"{k}={quote(str(v), safe='')}" for k, v in names.items()]
        return open_sink(f"{base}?{'&'.join(kept + extra)}")

    def test_every_column_type_survives_insert_update_and_delete(self, sink: Sink) -> None:
        spec = all_types_table()

        @_SETTINGS
        @given(st.lists(row_events(spec), min_size=1, max_size=4))
        def check(events: list[Event]) -> None:
            _, back = round_trip(sink, events)
            assert back == expected(sink, events)

        check()

    def test_each_column_type_alone_round_trips(self, sink: Sink) -> None:
        for kind in COLUMN_KINDS:
            spec = TableSpec("test", f"t_{kind.label}", (kind,), (True,))

            @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
            @given(row_events(spec))
            def check(event: Event) -> None:
                _, back = round_trip(sink, [event])
                assert back == expected(sink, [event]), kind.label

            check()

    def test_mixed_batches_round_trip_in_order(self, sink: Sink) -> None:
        @_SETTINGS
        @given(event_batches())
        def check(events: list[Event]) -> None:
            _, back = round_trip(sink, events)
            assert back == expected(sink, events)

        check()

    def test_payload_event_counts_reconcile_with_events_carried(self, sink: Sink) -> None:
        @_SETTINGS
        @given(event_batches())
        def check(events: list[Event]) -> None:
            payloads = list(encoder_for(sink, sink.topic, 0).encode(events))
            assert sum(p.events for p in payloads) == len(expected(sink, events))

        check()

    def test_columnar_path_writes_the_event_paths_bytes_for_every_column_type(self, sink: Sink) -> None:
        spec = all_types_table()

        @_COLUMNAR_SETTINGS
        @given(st.lists(row_events(spec), min_size=1, max_size=6))
        def check(events: list[Event]) -> None:
            columnar, by_event = columnar_and_event_payloads(lambda: self.encoder_under_test(sink), events)
            assert columnar == by_event

        check()

    def test_columnar_path_writes_the_event_paths_bytes_for_mixed_batches(self, sink: Sink) -> None:
        @_COLUMNAR_SETTINGS
        @given(event_batches(), st.integers(1, 8))
        def check(events: list[Event], batch_size: int) -> None:
            columnar, by_event = columnar_and_event_payloads(
                lambda: self.encoder_under_test(sink), events, batch_size
            )
            assert columnar == by_event

        check()

    def test_columnar_path_batches_and_splits_large_messages_as_the_event_path(self, sink: Sink) -> None:
        small = self.with_params(sink, max_message_bytes=2048)

        @_COLUMNAR_SETTINGS
        @given(event_batches())
        def check(events: list[Event]) -> None:
            assert_columnar_encoding_matches(lambda: self.encoder_under_test(small), events)

        check()

    def test_columnar_decoding_gives_the_event_paths_events(self, sink: Sink) -> None:
        @_COLUMNAR_SETTINGS
        @given(event_batches())
        def check(events: list[Event]) -> None:
            messages, _ = round_trip(sink, events)
            columnar, by_event = columnar_and_event_decoding(sink, messages)
            assert columnar == by_event

        check()

    def test_columnar_decoding_refuses_what_the_event_path_refuses(self, sink: Sink) -> None:
        @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
        @given(event_batches(max_size=4), st.data())
        def check(events: list[Event], data: st.DataObject) -> None:
            messages, _ = round_trip(sink, events)
            broken = []
            for m in messages:
                part = data.draw(st.sampled_from(("key", "value") if m.key else ("value",)))
                spoiled = data.draw(mutated(getattr(m, part) or b""))
                key, value = (spoiled, m.value) if part == "key" else (m.key, spoiled)
                broken.append(Message(m.topic, m.partition, key, value, m.offset))
            columnar, by_event = columnar_and_event_decoding(sink, broken)
            assert repr(columnar) == repr(by_event)  # by text: a spoiled DOUBLE may read as NaN

        check()

    def test_no_message_exceeds_max_message_bytes(self, sink: Sink) -> None:
        small = self.with_params(sink, max_message_bytes=2048)

        @_SETTINGS
        @given(event_batches())
        def check(events: list[Event]) -> None:
            try:
                payloads = list(encoder_for(small, small.topic, 0).encode(events))
            except MessageTooLargeError:
                return  # a single event too large for the limit: refused, never sent oversize
            for p in payloads:
                assert len(p.key or b"") + len(p.value or b"") <= 2048

        check()

    def test_every_truncation_raises_decode_error_only(self, sink: Sink) -> None:
        spec = all_types_table(nullable=False)

        @settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
        @given(row_events(spec))
        def check(event: Event) -> None:
            messages, _ = round_trip(sink, [event, ResolvedEvent(event.commit_ts)])
            decoder = decoder_for(sink)
            for m in messages:
                for part in ("key", "value"):
                    data = getattr(m, part)
                    if not data:
                        continue
                    for cut in range(len(data)):
                        key, value = (data[:cut], m.value) if part == "key" else (m.key, data[:cut])
                        decoded_or_refused(decoder, Message(m.topic, m.partition, key, value, m.offset))

        check()

    def test_mutated_messages_decode_to_valid_events_or_a_decode_error(self, sink: Sink) -> None:
        @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
        @given(event_batches(max_size=4), st.data())
        def check(events: list[Event], data: st.DataObject) -> None:
            messages, _ = round_trip(sink, events)
            decoder = decoder_for(sink)
            for m in messages:
                part = data.draw(st.sampled_from(("key", "value") if m.key else ("value",)))
                broken = data.draw(mutated(getattr(m, part) or b""))
                key, value = (broken, m.value) if part == "key" else (m.key, broken)
                decoded_or_refused(decoder, Message(m.topic, m.partition, key, value, m.offset))

        check()

    def test_every_event_the_check_accepts_reads_back_with_the_same_plugin(self, sink: Sink) -> None:
        """Type texts bare (``decimal``, ``bit``) or absent, values past declared widths: what the
        encoder writes (it may refuse with an EncodeError), its own decoder reads back."""

        @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
        @given(accepted_rows())
        def check(event: RowChangedEvent) -> None:
            try:
                _, back = round_trip(sink, [event])
            except EncodeError:
                return  # refused with a clear error: nothing written its decoder must read
            assert back == expected(sink, [event])

        check()

    def test_the_core_encoder_refuses_every_broken_event_naming_the_rule(self, sink: Sink) -> None:
        @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
        @given(broken_events())
        def check(broken: Broken) -> None:
            with pytest.raises(InvalidEventError) as info:
                list(encoder_for(sink, sink.topic, 0).encode([broken.event]))
            assert broken.rule in str(info.value)

        check()

    def test_what_the_codec_writes_of_a_broken_event_decodes_valid_or_is_refused(
        self, sink: Sink
    ) -> None:
        @settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
        @given(broken_events())
        def check(broken: Broken) -> None:
            try:  # the codec's own encoder, unguarded: the core never gives it such an event
                payloads = list(sink.codec.encoder(sink.config, sink.topic, 0).encode([broken.event]))
            except Exception:
                return
            decoder = decoder_for(sink)
            for i, p in enumerate(payloads):
                decoded_or_refused(decoder, Message(sink.topic, 0, p.key, p.value, i))

        check()

    def test_random_bytes_decode_to_valid_events_or_a_decode_error(self, sink: Sink) -> None:
        decoder = decoder_for(sink)

        @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
        @given(st.one_of(st.none(), st.binary(max_size=64)), st.one_of(st.none(), st.binary(max_size=256)))
        def check(key: Any, value: Any) -> None:
            decoded_or_refused(decoder, Message(sink.topic, 0, key, value, 0))

        check()

    def test_ddl_and_resolved_events_follow_the_declared_policy(self, sink: Sink) -> None:
        ddl = DDLEvent(10, "test", "t1", "ALTER TABLE t1 ADD COLUMN c INT", DDLType.ADD_COLUMN)
        resolved = ResolvedEvent(11)
        _, back = round_trip(sink, [ddl, resolved])
        assert back == expected(sink, [ddl, resolved])

    def test_decoded_rows_are_row_events(self, sink: Sink) -> None:
        spec = all_types_table(nullable=False)

        @settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
        @given(row_events(spec, kinds=("insert",)))
        def check(event: Event) -> None:
            _, back = round_trip(sink, [event])
            assert all(isinstance(e, RowChangedEvent) for e in back)

        check()

    # -- large messages (for the modes a codec declares; a mode it does not is refused) -------

    def large_row(self, size: int = 6000, key: int = 1, ts: int = 100) -> RowChangedEvent:
        """A row of a table with a handle key whose text column takes it past a small limit
        (hex of random bytes: LZ compression, snappy's and lz4's, cannot shrink it much)."""
        flags = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
        text = random.Random(key).randbytes(size // 2).hex()
        return RowChangedEvent(ts, "test", "large", (
            Column("id", ColumnType.BIGINT, flags, key),
            Column("body", ColumnType.VARCHAR, ColumnFlag.NULLABLE, text),
        ))

    def large_message_sink(self, sink: Sink, mode: str, **params: Any) -> Sink | None:
        """The sink under ``large-message-handle-option=mode`` and a 2 KiB limit; None (after
        checking the refusal is a SinkURIError naming a parameter) when the codec does not
        declare the mode, or refuses it under this class's other parameters."""
        declared = {p.name: p for p in sink.codec.parameters}.get(LARGE_MESSAGE_HANDLE_OPTION.name)
        try:
            return self.with_params(sink, max_message_bytes=2048, large_message_handle_option=mode, **params)
        except SinkURIError as exc:
            assert exc.parameter, f"refusing large-message-handle-option={mode} must name a parameter"
            if declared is not None and mode in declared.choices:
                assert exc.parameter != LARGE_MESSAGE_HANDLE_OPTION.name or "needs" in str(exc)
            return None

    def test_a_large_row_under_handle_key_only_reads_back_as_its_handle_key_marked(self, sink: Sink) -> None:
        large = self.large_message_sink(sink, "handle-key-only")
        if large is None:
            return
        events = [self.large_row(), self.large_row(size=10, key=2, ts=101)]
        _, back = round_trip(large, events)
        assert back == expected(large, events)
        assert back[0].handle_key_only and all(c.is_handle_key for c in back[0].columns)
        assert not back[1].handle_key_only

    def test_a_large_row_under_claim_check_reads_back_whole_from_its_stored_object(self, sink: Sink, tmp_path) -> None:
        large = self.large_message_sink(sink, "claim-check", claim_check_storage_uri=f"file://{tmp_path}")
        if large is None:
            return
        events = [self.large_row(), self.large_row(size=10, key=2, ts=101)]
        messages, back = round_trip(large, events)
        assert back == expected(large, events)
        assert not any(e.handle_key_only for e in back if isinstance(e, RowChangedEvent))
        assert all(len(m.value or b"") + len(m.key or b"") <= 2048 for m in messages)
        [stored] = list(tmp_path.glob("*.json"))
        if not large.config.get("claim-check-raw-value"):
            assert read_claim_check_object(stored.read_bytes())[1]

    def test_compressed_values_round_trip(self, sink: Sink) -> None:
        for codec in ("snappy", "lz4"):
            try:
                compressed = self.with_params(sink, large_message_handle_compression=codec)
            except SinkURIError as exc:
                assert exc.parameter == "large-message-handle-compression"
                return

            @settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
            @given(event_batches())
            def check(events: list[Event]) -> None:
                _, back = round_trip(compressed, events)
                assert back == expected(compressed, events)

            check()
