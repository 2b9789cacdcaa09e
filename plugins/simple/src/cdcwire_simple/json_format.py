"""simple's JSON encoding: the message object as Go's ``json.Marshal`` writes it, and back.

Go escapes ``<``, ``>``, ``&``, U+2028 and U+2029 in strings (HTML-safe JSON); orjson does
not, and those characters occur only inside strings, so the bytes are rewritten after.
"""

from __future__ import annotations

from typing import Any

import orjson

from cdcwire.plugin_api import ColumnType

from .json_values import reader_of, writer_of

_GO_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"),
               ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029"))


class JsonFormat:
    """``encoding-format=json``."""

    name = "json"

    def __init__(self, time_zone: str) -> None:
        self.time_zone = time_zone
        self._writers: dict[tuple[int, int], Any] = {}

    def value(self, ctype: ColumnType, flags: int, value: Any) -> Any:
        writer = self._writers.get((ctype, flags))
        if writer is None:
            writer = self._writers[(ctype, flags)] = writer_of(ctype, flags, self.time_zone)
        return writer(value)

    def dumps(self, message: dict[str, Any]) -> bytes:
        data = orjson.dumps(message)
        for raw, escaped in _GO_ESCAPES:
            if raw in data:
                data = data.replace(raw, escaped)
        return data

    def loads(self, data: bytes) -> Any:
        """The message object; ValueError (orjson's) when the bytes are not JSON."""
        return orjson.loads(data)

    reader = staticmethod(reader_of)

    @staticmethod
    def round_trip(value: Any) -> Any:
        """A value as it reads back from the message (the carrier's model)."""
        return orjson.loads(orjson.dumps(value))
