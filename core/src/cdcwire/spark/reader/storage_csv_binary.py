"""Binary values from their text in a csv data file (base64 or hex), a whole column at once in
numpy: the fast csv tier's twin of :mod:`cdcwire.transports.storage.table_columns`' readers.

Why: one ``base64.b64decode`` call per value was a third of the fast tier's time on a table
of BLOBs. A column is decoded as one buffer: each character looked up in a table, four
characters packed into three bytes. Only the plain form is taken here (base64: a length that
is a multiple of 4, the alphabet, ``=`` padding only at the end; hex: an even number of hex
digits), which the reference readers decode to the same bytes; for anything else (whitespace
in hex, a bad character) the result is None and the file goes to the reference tier, whose
reader says what is wrong.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pyarrow as pa

_INVALID = 255
_BASE64 = np.full(256, _INVALID, dtype=np.uint8)
_BASE64[np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", np.uint8)] = np.arange(64)
_PAD = ord("=")
_HEX = np.full(256, _INVALID, dtype=np.uint8)
_HEX[np.frombuffer(b"0123456789abcdef", np.uint8)] = np.arange(16)
_HEX[np.frombuffer(b"ABCDEF", np.uint8)] = np.arange(10, 16)


def _parts(text: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The characters of the non-null values of a string array, their offsets and lengths."""
    values = text.drop_null() if text.null_count else text
    values = pa.concat_arrays([values]) if values.offset else values  # offsets from 0
    offsets = np.frombuffer(values.buffers()[1], np.int32)[: len(values) + 1].astype(np.int64)
    data = values.buffers()[2]
    chars = np.frombuffer(data, np.uint8)[offsets[0]:offsets[-1]] if data is not None else np.zeros(0, np.uint8)
    offsets = offsets - offsets[0]
    return chars, offsets, np.diff(offsets)


def _binary(decoded: np.ndarray, lengths: np.ndarray, text: pa.Array) -> pa.Array:
    """Values of ``lengths`` bytes each from ``decoded``, null where ``text`` is null."""
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
    values = pa.Array.from_buffers(pa.binary(), len(lengths), [None, pa.py_buffer(offsets), pa.py_buffer(decoded)])
    if not text.null_count:
        return values
    at = np.cumsum(text.is_valid().to_numpy(zero_copy_only=False)) - 1
    return values.take(pa.array(at, pa.int64(), mask=~text.is_valid().to_numpy(zero_copy_only=False)))


def base64_values(text: pa.Array) -> Optional[pa.Array]:
    """The bytes of each base64 text (``binary-encoding-method=base64``), or None."""
    chars, offsets, lengths = _parts(text)
    if (lengths % 4).any():
        return None
    sextets = _BASE64[chars]
    bad = sextets == _INVALID
    pads = chars == _PAD
    if (bad & ~pads).any():
        return None
    ends = np.repeat(offsets[1:], lengths)  # each character's value's end
    place = ends - np.arange(len(chars))  # 1 for a value's last character, 2 for the one before
    if (pads & (place > 2)).any():
        return None
    pad_count = np.zeros(len(lengths), dtype=np.int64)
    if pads.any():
        # "=" before the last character needs "=" as the last one ("a=b=" is not padding)
        second = np.flatnonzero(pads & (place == 2))
        if len(second) and not pads[second + 1].all():
            return None
        owner = np.repeat(np.arange(len(lengths)), lengths)
        pad_count = np.bincount(owner[pads], minlength=len(lengths))
    sextets = np.where(pads, 0, sextets).astype(np.uint32).reshape(-1, 4)
    packed = (sextets[:, 0] << 18) | (sextets[:, 1] << 12) | (sextets[:, 2] << 6) | sextets[:, 3]
    decoded = np.stack([(packed >> 16) & 0xFF, (packed >> 8) & 0xFF, packed & 0xFF], axis=1).astype(np.uint8).ravel()
    sizes = lengths // 4 * 3 - pad_count
    if pad_count.any():  # drop each value's padding bytes
        full = lengths // 4 * 3
        starts = np.concatenate(([0], np.cumsum(full)[:-1]))
        keep = (np.arange(len(decoded)) - np.repeat(starts, full)) < np.repeat(sizes, full)
        decoded = decoded[keep]
    return _binary(decoded, sizes, text)


def hex_values(text: pa.Array) -> Optional[pa.Array]:
    """The bytes of each hex text (``binary-encoding-method=hex``), or None."""
    chars, _, lengths = _parts(text)
    if (lengths % 2).any():
        return None
    nibbles = _HEX[chars]
    if (nibbles == _INVALID).any():
        return None
    pairs = nibbles.reshape(-1, 2)
    return _binary((pairs[:, 0] << 4 | pairs[:, 1]).astype(np.uint8), lengths // 2, text)
