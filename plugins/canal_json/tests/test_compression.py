"""large-message-handle-compression: every value compressed (snappy block, lz4 frame) before the
size check, and decompressed first by the reader, as the reference's canal-json does."""

from __future__ import annotations

import json
import random
import string

import cramjam
import pytest

import cdcwire
from cdcwire import (
    Column,
    ColumnFlag,
    ColumnType,
    DDLEvent,
    DDLType,
    DecodeError,
    ResolvedEvent,
    RowChangedEvent,
)
from cdcwire.sinks.sink import protocol_config
from cdcwire.sinks.sink import open_sink
from cdcwire_canal_json.encoder import CanalJSONEncoder
from cdcwire_canal_json.options import CanalOptions

from canal_cases import COMMIT_TS, KEY, tp_int_row

GO_COMPRESS = {  # what Go's snappy.Encode and lz4.NewWriter write
    "snappy": lambda data: bytes(cramjam.snappy.compress_raw(data)),
    "lz4": lambda data: bytes(cramjam.lz4.compress(data)),
}
BIG = "x" * 3000
NOISE = "".join(random.Random(7).choices(string.ascii_letters, k=3000))  # compresses little
CLOCK = 1_700_000_000_000


def _config(compression: str, **params: str):
    return protocol_config("canal-json", **{
        "enable-tidb-extension": "true", "large-message-handle-compression": compression, **params,
    })


def _events() -> dict[str, object]:
    row, changed = tp_int_row(), tp_int_row(c_int=5)
    return {
        "insert": RowChangedEvent(COMMIT_TS, "test", "tp_int", row, None),
        "update": RowChangedEvent(COMMIT_TS, "test", "tp_int", changed, row),
        "delete": RowChangedEvent(COMMIT_TS, "test", "tp_int", None, row),
        "ddl": DDLEvent(
            COMMIT_TS, "test", "tp_int", "CREATE TABLE tp_int (id INT PRIMARY KEY)", DDLType.CREATE_TABLE
        ),
        "watermark": ResolvedEvent(COMMIT_TS),
    }


def _values(config, events) -> list[bytes]:
    encoder = CanalJSONEncoder(CanalOptions.from_config(config), clock=lambda: CLOCK)
    return [p.value for p in encoder.encode(events)]


def _decode(config, value: bytes) -> list[object]:
    return cdcwire.decode(config, [cdcwire.Message("t", 0, None, value)])


@pytest.mark.parametrize("compression", ["snappy", "lz4"])
@pytest.mark.parametrize("kind", ["insert", "update", "delete", "ddl", "watermark"])
def test_every_message_kind_round_trips_compressed(compression, kind):
    config = _config(compression)
    event = _events()[kind]
    (value,) = _values(config, [event])
    assert _decode(config, value) == [open_sink(config).codec.carrier(config)(event)]


@pytest.mark.parametrize("compression", ["snappy", "lz4"])
@pytest.mark.parametrize("kind", ["insert", "update", "delete", "ddl", "watermark"])
def test_every_value_is_the_go_compression_of_the_plain_message(compression, kind):
    event = _events()[kind]
    (plain,) = _values(_config("none"), [event])
    (value,) = _values(_config(compression), [event])
    assert value == GO_COMPRESS[compression](plain)


@pytest.mark.parametrize("compression", ["snappy", "lz4"])
def test_a_value_compressed_by_go_compatible_codecs_decodes(compression):
    message = {
        "id": 0, "database": "test", "table": "t", "pkNames": ["id"], "isDdl": False, "type": "INSERT",
        "es": COMMIT_TS >> 18, "ts": CLOCK, "sql": "", "sqlType": {"id": 4, "name": 12},
        "mysqlType": {"id": "int", "name": "varchar"}, "old": None, "data": [{"id": "1", "name": "ann"}],
        "_tidb": {"commitTs": COMMIT_TS},
    }
    value = GO_COMPRESS[compression](json.dumps(message).encode())
    (row,) = _decode(_config(compression), value)
    assert row.commit_ts == COMMIT_TS
    assert [(c.name, c.value) for c in row.columns] == [("id", 1), ("name", "ann")]


def test_the_size_check_counts_the_compressed_value():
    row = (Column("id", ColumnType.INT, KEY, 7, "int(11)"),
           Column("body", ColumnType.VARCHAR, ColumnFlag(0), BIG))
    event = RowChangedEvent(COMMIT_TS, "s", "t", row, None)
    config = _config("snappy", **{"max-message-bytes": "1024"})
    (value,) = _values(config, [event])
    assert len(value) + 36 <= 1024
    doc = json.loads(cramjam.snappy.decompress_raw(value).read())
    assert doc["data"][0]["body"] == BIG and "onlyHandleKey" not in doc["_tidb"]


def test_a_row_too_large_even_compressed_names_the_compressed_size():
    row = (Column("id", ColumnType.INT, KEY, 7, "int(11)"),
           Column("body", ColumnType.VARCHAR, ColumnFlag(0), NOISE))
    config = _config("lz4", **{"max-message-bytes": "1024"})
    expected = r"s\.t at commit ts .* is \d+ bytes \(lz4-compressed\)"
    with pytest.raises(cdcwire.MessageTooLargeError, match=expected):
        _values(config, [RowChangedEvent(COMMIT_TS, "s", "t", row, None)])


@pytest.mark.parametrize("compression", ["snappy", "lz4"])
def test_a_value_the_codec_cannot_decompress_is_a_decode_error_saying_so(compression):
    (plain,) = _values(_config("none"), [_events()["insert"]])
    with pytest.raises(DecodeError, match=f"cannot be decompressed.*{compression}") as caught:
        _decode(_config(compression), plain)
    assert caught.value.part == "value"


def test_a_field_error_in_a_decompressed_value_says_it_is_in_the_decompressed_value():
    value = GO_COMPRESS["snappy"](b'{"id":0}')
    with pytest.raises(DecodeError, match="is missing") as caught:
        _decode(_config("snappy"), value)
    assert caught.value.part == "decompressed value"


def test_compression_needs_no_tidb_extension():
    config = protocol_config("canal-json", **{"large-message-handle-compression": "snappy"})
    event = _events()["insert"]
    (value,) = _values(config, [event])
    assert _decode(config, value) == [open_sink(config).codec.carrier(config)(event)]


@pytest.mark.parametrize("compression", ["snappy", "lz4"])
def test_columnar_decoding_of_compressed_values_gives_the_event_paths_events(compression):
    from cdcwire.testing.conformance import columnar_and_event_decoding

    config = _config(compression)
    values = _values(config, list(_events().values()))
    messages = [cdcwire.Message("t", 0, None, v, i) for i, v in enumerate(values)]
    columnar, by_event = columnar_and_event_decoding(config, messages)
    assert columnar == by_event and len(by_event) == 5


# --- decompression bombs: a few MB that decompress to hundreds -------------------------------

BOMB_SCRIPT = r"""
import json, resource, sys
import cramjam
import cdcwire
from cdcwire import DecodeError, Message

codec, params = sys.argv[1], sys.argv[2]
if codec == "lz4":  # 512 MiB of zeros, compressed a MiB at a time: about 2 MB
    compressor = cramjam.lz4.Compressor()
    for _ in range(512):
        compressor.compress(bytes(1 << 20))
    bomb = bytes(compressor.finish())
else:  # snappy block: 200 MiB said in its header, one literal zero, then copies of 64 bytes (3 bytes each)
    size, header = 200 << 20, bytearray()
    n = size
    while n >= 0x80:
        header.append(n & 0x7F | 0x80)
        n >>= 7
    header.append(n)
    bomb = bytes(header) + b"\x00\x00" + b"\xfe\x01\x00" * ((size - 1) // 64) + b"\x00\x00" * ((size - 1) % 64)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
uri = "file:///nowhere/t?protocol=canal-json&large-message-handle-compression=" + codec + params
try:
    cdcwire.decode(uri, [Message("t", 0, None, bomb)])
    error = None
except DecodeError as exc:
    error = str(exc)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({"bomb": len(bomb), "error": error, "grown_kib": grown}))
"""


def _decode_bomb(codec: str, params: str = "") -> dict:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", BOMB_SCRIPT, codec, params], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("codec", ["lz4", "snappy"])
def test_a_decompression_bomb_is_refused_without_decompressing_it(codec):
    result = _decode_bomb(codec)
    assert result["bomb"] < 12 << 20  # a few MB that say they hold 200 or 512 MiB
    assert "larger than max-decompressed-bytes=67108864 decompressed" in result["error"]
    assert result["grown_kib"] < 100 << 10  # not the hundreds of MiB it would decompress to


@pytest.mark.parametrize("codec", ["lz4", "snappy"])
def test_max_decompressed_bytes_sets_the_bound(codec):
    result = _decode_bomb(codec, "&max-decompressed-bytes=1048576")
    assert "larger than max-decompressed-bytes=1048576 decompressed" in result["error"]
    assert result["grown_kib"] < 20 << 10
