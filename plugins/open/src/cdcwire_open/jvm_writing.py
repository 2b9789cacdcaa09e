"""open-protocol's messages made by the Java tier (``io.cdcwire.open.OpenBatchEncoder``, a
``BatchEncoder`` of the core's JVM framework: ``jvm/`` beside this module).

The Python encoder (:mod:`.encoder`) stays the reference: Java gives its messages, byte for byte
and closed at the same events, for the batches it is sure of, and leaves every other batch to it
(the core's ``BatchEncoding`` and encoding stage). Java takes resolved events and the rows whose
images it sends as :func:`.row_images.sent_images` does (whole; an update's new image alone
without old values; a delete's handle-key columns), not only-output-updated-columns' changed old
columns, whose record checks certainly pass and whose message fits ``max-message-bytes`` alone.

Nothing Java needs is written twice: :func:`type_table` asks the installed encoder's own column
rule (``column_values.value_writer``) which writer each type code takes, with and without the
binary flag; :func:`escaped_ranges` asks ``go_quote``'s own per-character rule which non-ASCII
characters it escapes (Python's ``str.isprintable`` of its Unicode version, which the JVM's need
not share); the framing constants come from the encoder's modules.
"""

from __future__ import annotations

from typing import Any, Optional

from cdcwire.plugin_api import MESSAGE_OVERHEAD, ColumnFlag, ColumnType, DDLType, LargeMessageOptions, SinkConfig

from . import column_values as cv
from .go_quote import _escape_char
from .framing import EVENT_FRAMING, VERSION
from .options import OpenOptions

#: The name Java knows each of the encoder's value writers by (any other writer: Python's).
_RULES = {
    cv._write_integer: "int",
    cv._write_float32: "float32",
    cv._write_float64: "double",
    cv._write_text: "text",
    cv._write_quoted_bytes: "quoted",
    cv._write_base64: "base64",
}


def refusal(config: SinkConfig) -> Optional[str]:
    """Why the Java tier cannot encode messages of this configuration, or None when it can."""
    large = LargeMessageOptions.from_config(config)
    if large.compression.enabled:
        return "open-protocol's large-message compression is encoded in Python only"
    if large.claim_check:
        return "open-protocol's claim-check is encoded in Python only"
    return None


def type_table() -> dict[str, dict[str, Any]]:
    """For each column type name: its code and its value rule [without, with the binary flag]
    (None where the encoder's writer has no port in Java)."""
    return {
        t.name: {"code": int(t), "rules": [_RULES.get(cv.value_writer(int(t), binary)) for binary in (False, True)]}
        for t in ColumnType
    }


def escaped_ranges() -> list[list[int]]:
    """The code points from U+0080 up that ``go_quote`` writes as an escape, as [first, last]
    ranges (the surrogates, which well-formed UTF-8 never holds, with them)."""
    ranges: list[list[int]] = []
    for code in range(0x80, 0x110000):
        ch = chr(code)
        if 0xD800 <= code <= 0xDFFF or _escape_char(ch) != ch:
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    return ranges


_TYPES: list[dict] = []  # the type table and escapes of this process (they depend on no option)


def encoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java encoder is made with (the core adds the record checks' tables)."""
    if not _TYPES:
        _TYPES.append({"types": type_table(), "escaped": escaped_ranges()})
    options = OpenOptions.from_config(config)
    return {
        **_TYPES[0],
        "flags": {"binary": int(ColumnFlag.BINARY), "handle_key": int(ColumnFlag.HANDLE_KEY)},
        "max_batch_size": options.max_batch_size,
        "max_message_bytes": options.max_message_bytes,
        "overhead": MESSAGE_OVERHEAD,
        "framing": EVENT_FRAMING,
        "version": VERSION,
        "ddl_types": {t.name: int(t) for t in DDLType},
        # which images travel (row_images.sent_images): Java sends the ones it is sure of
        "old_value": options.old_value,
        "only_updated_columns": options.only_updated_columns,
        "delete_only_handle_key": options.delete_only_handle_key,
    }
