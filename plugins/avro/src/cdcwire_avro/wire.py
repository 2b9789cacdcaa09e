"""Confluent's wire format: magic byte 0, the schema id as 4-byte big-endian, then Avro binary."""

from __future__ import annotations

import struct

from cdcwire.plugin_api import DecodeError

MAGIC = 0
HEADER_SIZE = 5
_HEADER = struct.Struct(">bI")


def header(schema_id: int) -> bytes:
    return _HEADER.pack(MAGIC, schema_id)


def split(data: bytes, part: str) -> tuple[int, memoryview]:
    """(schema id, Avro body) of a framed message; DecodeError naming the part and byte."""
    if len(data) < HEADER_SIZE:
        if data and data[0] != MAGIC:
            raise DecodeError(f"no Confluent magic byte: first byte is 0x{data[0]:02x}, expected 0x00", 0, part)
        raise DecodeError(
            f"{len(data)} bytes cannot hold the Confluent header (magic byte and 4-byte schema id)",
            len(data), part,
        )
    magic, schema_id = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise DecodeError(f"no Confluent magic byte: first byte is 0x{data[0]:02x}, expected 0x00", 0, part)
    return schema_id, memoryview(data)[HEADER_SIZE:]
