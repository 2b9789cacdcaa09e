"""Large rows under open-protocol: handle-key-only, claim-check and value compression.

Behaviour as the reference (tiflow ``pkg/sink/codec/open``): a row over
``max-message-bytes`` is sent with its handle-key columns only and ``"ohk":true`` in its
key, or stored whole in external storage and replaced by a message of its own whose key
carries ``"ccl"`` (the stored message's location) and whose value holds the handle-key
columns; ``large-message-handle-compression`` compresses every row and DDL value.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from urllib.parse import quote

import cramjam
import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, DecodeError, ResolvedEvent, RowChangedEvent
from cdcwire.foundation.errors import SinkURIError
from cdcwire.model.message import Message

F = ColumnFlag
T = ColumnType
KEY = F.HANDLE_KEY | F.PRIMARY_KEY


def row(text: str, ts: int = 10, key: int = 1) -> RowChangedEvent:
    return RowChangedEvent(ts, "shop", "doc", (Column("id", T.BIGINT, KEY, key), Column("body", T.VARCHAR, F.NULLABLE, text)))


BIG = row("x" * 2000)
SMALL = row("small", ts=11, key=2)


def uri(**params: object) -> str:
    base = "file:///tmp/cdcwire-open-large/t?protocol=open-protocol&max-message-bytes=1000"
    return base + "".join(f"&{k}={quote(str(v), safe='')}" for k, v in params.items())


def claim_check(storage: Path, **params: object) -> str:
    return uri(**{"large-message-handle-option": "claim-check", "claim-check-storage-uri": f"file://{storage}"}, **params)


def key_jsons(message: Message) -> list[dict]:
    key, out, pos = message.key, [], 8
    while pos < len(key):
        n = int.from_bytes(key[pos:pos + 8], "big")
        out.append(json.loads(key[pos + 8:pos + 8 + n]))
        pos += 8 + n
    return out


def stored_objects(storage: Path) -> list[Path]:
    return sorted(p for p in storage.iterdir() if p.suffix == ".json") if storage.exists() else []


# -- handle-key-only ---------------------------------------------------------------------


def test_a_large_row_under_handle_key_only_reads_back_marked_with_its_key_only() -> None:
    sink = uri(**{"large-message-handle-option": "handle-key-only"})
    [event] = cdcwire.decode(sink, cdcwire.encode(sink, [BIG]))
    assert event.handle_key_only is True
    assert [c.name for c in event.columns] == ["id"]


def test_a_row_marked_key_only_keeps_its_mark_through_open_protocol() -> None:
    marked = RowChangedEvent(5, "shop", "doc", (Column("id", T.BIGINT, KEY, 7),), handle_key_only=True)
    [message] = cdcwire.encode(uri(), [marked])
    assert key_jsons(message)[0]["ohk"] is True
    assert cdcwire.decode(uri(), [message]) == [marked]


# -- claim-check -------------------------------------------------------------------------


def test_claim_check_sends_a_pointer_with_the_location_and_the_handle_key(tmp_path: Path) -> None:
    [message] = cdcwire.encode(claim_check(tmp_path), [BIG])
    [key] = key_jsons(message)
    [stored] = stored_objects(tmp_path)
    assert key["ccl"] == f"file://{tmp_path}/{stored.name}"
    assert "ohk" not in key
    value = json.loads(message.value[8:])
    assert list(value["u"]) == ["id"]


def test_claim_check_stores_the_whole_message_as_the_reference_does(tmp_path: Path) -> None:
    cdcwire.encode(claim_check(tmp_path), [BIG])
    [stored] = stored_objects(tmp_path)
    obj = json.loads(stored.read_bytes())
    assert sorted(obj) == ["key", "value"]
    whole = Message("t", 0, base64.b64decode(obj["key"]), base64.b64decode(obj["value"]))
    assert cdcwire.decode(uri(), [whole]) == [BIG]


def test_a_claim_checked_row_reads_back_whole(tmp_path: Path) -> None:
    sink = claim_check(tmp_path)
    assert cdcwire.decode(sink, cdcwire.encode(sink, [SMALL, BIG, SMALL])) == [SMALL, BIG, SMALL]


def test_a_row_that_fits_is_not_claim_checked(tmp_path: Path) -> None:
    cdcwire.encode(claim_check(tmp_path), [SMALL])
    assert stored_objects(tmp_path) == []


def test_the_pointer_travels_in_a_message_of_its_own(tmp_path: Path) -> None:
    messages = cdcwire.encode(claim_check(tmp_path), [SMALL, BIG, row("after", ts=12, key=3)])
    assert [len(key_jsons(m)) for m in messages] == [1, 1, 1]
    assert ["ccl" in key_jsons(m)[0] for m in messages] == [False, True, False]


def test_a_consumer_reads_the_object_by_its_file_name_from_its_own_storage(tmp_path: Path) -> None:
    writer, reader = tmp_path / "written", tmp_path / "copied"
    messages = cdcwire.encode(claim_check(writer), [BIG])
    reader.mkdir()
    [stored] = stored_objects(writer)
    (reader / stored.name).write_bytes(stored.read_bytes())
    os.remove(stored)
    assert cdcwire.decode(claim_check(reader), messages) == [BIG]


def test_a_location_that_climbs_out_of_the_storage_reads_only_its_file_name(tmp_path: Path) -> None:
    [message] = cdcwire.encode(claim_check(tmp_path / "a"), [BIG])
    [stored] = stored_objects(tmp_path / "a")
    [key] = key_jsons(message)
    forged = json.dumps({**key, "ccl": f"../../../../a/{stored.name}"}).encode()
    moved = Message(message.topic, message.partition, message.key[:8] + len(forged).to_bytes(8, "big") + forged,
                    message.value)
    assert cdcwire.decode(claim_check(tmp_path / "a"), [moved]) == [BIG]
    with pytest.raises(DecodeError, match="missing"):
        cdcwire.decode(claim_check(tmp_path / "elsewhere"), [moved])
    assert stored.exists()


def test_a_deleted_object_is_a_decode_error_naming_the_location_and_the_message(tmp_path: Path) -> None:
    [message] = cdcwire.encode(claim_check(tmp_path), [BIG])
    [stored] = stored_objects(tmp_path)
    stored.unlink()
    placed = Message("t", 2, message.key, message.value, offset=41)
    with pytest.raises(DecodeError) as info:
        cdcwire.decode(claim_check(tmp_path), [placed])
    text = str(info.value)
    assert stored.name in text and "missing" in text and "t/2/41" in text


def test_a_claim_checked_message_without_a_storage_to_read_from_says_what_to_set(tmp_path: Path) -> None:
    messages = cdcwire.encode(claim_check(tmp_path), [BIG])
    with pytest.raises(DecodeError, match="set claim-check-storage-uri"):
        cdcwire.decode(uri(), messages)


def test_claim_check_needs_a_storage_uri() -> None:
    with pytest.raises(SinkURIError, match="claim-check-storage-uri") as info:
        cdcwire.encode(uri(**{"large-message-handle-option": "claim-check"}), [BIG])
    assert info.value.parameter == "claim-check-storage-uri"


def test_claim_check_raw_value_is_refused_for_open_protocol(tmp_path: Path) -> None:
    with pytest.raises(SinkURIError) as info:
        cdcwire.encode(claim_check(tmp_path, **{"claim-check-raw-value": "true"}), [BIG])
    assert info.value.parameter == "claim-check-raw-value"


def test_an_unsupported_storage_scheme_is_refused_up_front() -> None:
    sink = uri(**{"large-message-handle-option": "claim-check", "claim-check-storage-uri": "gcs://bucket/p"})
    with pytest.raises(SinkURIError, match="gcs"):
        cdcwire.encode(sink, [SMALL])


# -- compression -------------------------------------------------------------------------

COMPRESS = {"snappy": lambda b: bytes(cramjam.snappy.compress_raw(b)), "lz4": lambda b: bytes(cramjam.lz4.compress(b))}
DECOMPRESS = {"snappy": lambda b: bytes(cramjam.snappy.decompress_raw(b)), "lz4": lambda b: bytes(cramjam.lz4.decompress(b))}
DDL = DDLEvent(9, "shop", "doc", "ALTER TABLE doc ADD COLUMN n INT", DDLType.ADD_COLUMN)


@pytest.mark.parametrize("codec", ["snappy", "lz4"])
def test_compression_round_trips_every_kind_of_event(codec: str) -> None:
    sink = uri(**{"large-message-handle-compression": codec, "partition-num": 1})
    events = [DDL, SMALL, row("other", ts=12, key=3), ResolvedEvent(20)]
    assert cdcwire.decode(sink, cdcwire.encode(sink, events)) == events


@pytest.mark.parametrize("codec", ["snappy", "lz4"])
def test_each_row_value_is_compressed_in_its_framing(codec: str) -> None:
    sink = uri(**{"large-message-handle-compression": codec})
    [compressed] = cdcwire.encode(sink, [SMALL])
    [plain] = cdcwire.encode(uri(), [SMALL])
    length = int.from_bytes(compressed.value[:8], "big")
    assert DECOMPRESS[codec](compressed.value[8:8 + length]) == plain.value[8:]
    assert compressed.key == plain.key


def test_a_resolved_value_stays_empty_under_compression() -> None:
    [message] = cdcwire.encode(uri(**{"large-message-handle-compression": "lz4", "partition-num": 1}), [ResolvedEvent(5)])
    assert message.value == bytes(8)


def test_compression_counts_before_the_size_check() -> None:
    compressible = row("a" * 5000)  # 5 KB of text, a few dozen bytes compressed
    [message] = cdcwire.encode(uri(**{"large-message-handle-compression": "snappy"}), [compressible])
    assert len(message.value) < 1000


def test_a_value_the_codec_cannot_decompress_is_a_decode_error() -> None:
    messages = cdcwire.encode(uri(), [SMALL])
    with pytest.raises(DecodeError, match="snappy"):
        cdcwire.decode(uri(**{"large-message-handle-compression": "snappy"}), messages)


def test_a_claim_checked_compressed_row_reads_back_whole(tmp_path: Path) -> None:
    sink = claim_check(tmp_path, **{"large-message-handle-compression": "lz4"})
    noisy = row(base64.b64encode(os.urandom(3000)).decode())  # too random to compress below the limit
    assert cdcwire.decode(sink, cdcwire.encode(sink, [noisy])) == [noisy]
    assert len(stored_objects(tmp_path)) == 1
