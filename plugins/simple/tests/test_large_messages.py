"""Rows over max-message-bytes: handle-key-only and claim-check through the core's large-message
machinery, as TiCDC's simple encoder handles them; compression applies first, to every message."""

from __future__ import annotations

import json
import random

import pytest

from cdcwire.plugin_api import Column, DecodeError, Message, MessageTooLargeError, RowChangedEvent, SinkURIError
from cdcwire.sinks.sink import open_sink
from simple_cases import KEY, F, T, decoder, encoder

LIMIT = "max-message-bytes=2048"


def big_row(ts: int = 10) -> RowChangedEvent:
    text = random.Random(ts).randbytes(3000).hex()
    return RowChangedEvent(ts, "db", "big", (Column("id", T.BIGINT, KEY, 7), Column("body", T.VARCHAR, F.NULLABLE, text)))


def last_message(query: str) -> dict:
    return json.loads(list(encoder(query).encode_event(big_row()))[-1].value)


def test_without_an_option_a_large_row_is_refused_naming_what_to_set() -> None:
    with pytest.raises(MessageTooLargeError, match="insert on db.big at commit ts 10 .* set large-message-handle-option"):
        list(encoder(LIMIT).encode_event(big_row()))


def test_under_handle_key_only_a_large_row_is_sent_as_its_handle_key() -> None:
    message = last_message(f"{LIMIT}&large-message-handle-option=handle-key-only")
    assert message["handleKeyOnly"] is True and message["data"] == {"id": "7"}


def test_a_handle_key_only_row_reads_back_marked_with_its_key_columns() -> None:
    query = f"{LIMIT}&large-message-handle-option=handle-key-only"
    dec = decoder(query)
    events = [e for i, p in enumerate(encoder(query).encode_event(big_row()))
              for e in dec.decode(Message("t", 0, None, p.value, i))]
    (row,) = events
    assert row.handle_key_only and [c.name for c in row.columns] == ["id"]


def test_under_claim_check_the_row_is_stored_whole_and_the_pointer_names_it(tmp_path) -> None:
    query = f"{LIMIT}&large-message-handle-option=claim-check&claim-check-storage-uri=file://{tmp_path}"
    payloads = list(encoder(query).encode_event(big_row()))
    pointer = json.loads(payloads[-1].value)
    [stored] = list(tmp_path.glob("*.json"))
    assert pointer["claimCheckLocation"].endswith(stored.name)
    assert pointer["handleKeyOnly"] is True and pointer["data"] == {"id": "7"}
    dec = decoder(query)
    back = [e for i, p in enumerate(payloads) for e in dec.decode(Message("t", 0, None, p.value, i))]
    (row,) = back
    assert [c.value for c in row.columns] == [c.value for c in big_row().columns]
    assert not row.handle_key_only


def test_a_claim_checked_row_without_the_storage_is_a_decode_error_saying_what_to_give(tmp_path) -> None:
    query = f"{LIMIT}&large-message-handle-option=claim-check&claim-check-storage-uri=file://{tmp_path}"
    payloads = list(encoder(query).encode_event(big_row()))
    dec = decoder()
    dec.decode(Message("t", 0, None, payloads[0].value, 0))
    with pytest.raises(DecodeError, match="claim-checked .* give the reader claim-check-storage-uri"):
        dec.decode(Message("t", 0, None, payloads[1].value, 1))


def test_claim_check_without_storage_is_refused_naming_the_parameter() -> None:
    with pytest.raises(SinkURIError, match="claim-check-storage-uri"):
        open_sink("file:///tmp/x/t?protocol=simple&large-message-handle-option=claim-check")


def test_a_compressed_row_is_sized_after_compression() -> None:
    row = RowChangedEvent(10, "db", "big", (Column("id", T.BIGINT, KEY, 7), Column("body", T.VARCHAR, F(0), "a" * 5000)))
    payloads = list(encoder(f"{LIMIT}&large-message-handle-compression=lz4").encode_event(row))
    assert len(payloads[-1].value) < 2048
