"""The file transport's record framing: one file per topic-partition.

A file starts with the 8-byte magic ``CDCWIRE1``; then records, each::

    u32 BE key length   (0xFFFFFFFF = no key)
    u32 BE value length (0xFFFFFFFF = no value)
    u32 BE CRC-32 of the two lengths' 8 bytes + key bytes + value bytes
    key bytes, value bytes

A record's offset is its 0-based index in the file, like a Kafka offset. The CRC
covers the lengths too, so "no key" and "empty key" cannot be confused by a flip.

Damage. A write that died, or one still in progress (a file being followed while
another process appends to it), leaves at most an *incomplete last record*: the file
ends inside it and no intact record follows it. That tail was never acknowledged: it
is not a record yet, not damage. A writer may cut it; a reader stops before it (its
count and its reads end there, so a follower reads it once it is whole). Anything
else (a record whose CRC fails, or whose length runs past the end while intact records
follow it) is damage: writers refuse to append (appending after damage would hide every
new record behind it), and readers stop with an error naming the file, record and byte,
or, asked to skip damage, resynchronise on the next record whose header and CRC check
out. A damaged length in the last record is indistinguishable from a torn tail and is
taken as one, by writers and readers alike.

Offsets across damage: a record does not carry its offset, so after a damaged stretch
the next intact record's offset must be told, not guessed (a consumer that stored offsets
would skip or repeat records). With an entry of the partition's offset index
(:mod:`.offset_index`) past the damage, the records from the stretch's end are walked to
that entry's record (found by its CRC, and the next entry's at the same distance: bytes
inserted or deleted move every later record alike), which has the entry's offset, so
each record between has its own. Without one, the stretch counts as one record only when
that is proven: its lengths span it and one flipped bit (in its lengths, key, value or
CRC) accounts for its CRC, or one of its lengths, set to fill it, makes its CRC check out
(that length damaged). Any other stretch (bytes inserted or deleted, more than one bit
changed) may have held any number of records: a skipping read stops there with an error
saying so. Damage that runs to the end of the file needs no offset.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterator, Optional, Sequence

from ...foundation.errors import TransportError

MAGIC = b"CDCWIRE1"
NONE_LEN = 0xFFFFFFFF
_HEAD = struct.Struct(">III")
_LENGTHS = struct.Struct(">II")
_RESYNC_BLOCK = 1 << 20
#: (offset, byte, CRC) of a record a clean read checked: an offset index entry.
Anchor = tuple[int, int, int]


def frame(key: Optional[bytes], value: Optional[bytes]) -> bytes:
    k = key or b""
    v = value or b""
    lengths = _LENGTHS.pack(NONE_LEN if key is None else len(k), NONE_LEN if value is None else len(v))
    crc = zlib.crc32(v, zlib.crc32(k, zlib.crc32(lengths)))
    return lengths + crc.to_bytes(4, "big") + k + v


@dataclass(frozen=True, slots=True)
class Damage:
    """A damaged stretch of a partition file: where it starts and how long it is."""

    file: str
    record: int
    byte: int
    length: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}: record {self.record} at byte {self.byte} {self.reason} ({self.length} bytes)"


@dataclass(frozen=True, slots=True)
class _Parsed:
    problem: str  # "" when the record is intact
    end: int
    key: Optional[bytes] = None
    value: Optional[bytes] = None
    crc: int = 0


def _parse(f: BinaryIO, pos: int, size: int) -> _Parsed:
    """The record at byte ``pos`` of a file ``size`` long (reads from the current position)."""
    if pos + _HEAD.size > size:
        return _Parsed("is truncated (header)", size)
    if f.tell() != pos:
        f.seek(pos)
    h = f.read(_HEAD.size)
    klen, vlen, crc = _HEAD.unpack(h)
    kn = 0 if klen == NONE_LEN else klen
    vn = 0 if vlen == NONE_LEN else vlen
    end = pos + _HEAD.size + kn + vn
    if end > size:
        return _Parsed("is truncated (body)", size)
    body = f.read(kn + vn)
    if len(body) < kn + vn:  # the file shrank under us
        return _Parsed("is truncated (body)", size)
    if zlib.crc32(body, zlib.crc32(h[: _LENGTHS.size])) != crc:
        return _Parsed("fails its CRC check", end)
    return _Parsed("", end, None if klen == NONE_LEN else body[:kn], None if vlen == NONE_LEN else body[kn:], crc)


def record_crc(f: BinaryIO, pos: int, size: int) -> Optional[int]:
    """The CRC of the intact record at byte ``pos`` (its CRC checked), None when no intact
    record starts there: how an offset index entry is checked before it is used."""
    if pos < len(MAGIC):
        return None
    parsed = _parse(f, pos, size)
    return None if parsed.problem else parsed.crc


def next_intact(f: BinaryIO, start: int, size: int) -> Optional[int]:
    """The first byte at or after ``start`` where an intact record begins, or None.

    Tries every byte; most candidates fail on their lengths (past the end) before any
    CRC is computed. A value that happens to embed a whole cdcwire record could be
    taken for one: then damage is reported where there was only a torn tail, the safe
    side (a writer refuses instead of cutting).
    """
    pos = start
    while pos + _HEAD.size <= size:
        f.seek(pos)
        block = f.read(min(_RESYNC_BLOCK, size - pos))
        view = memoryview(block)
        for i in range(0, len(block) - _HEAD.size + 1):
            klen, vlen, crc = _HEAD.unpack_from(block, i)
            body_end = i + _HEAD.size + (0 if klen == NONE_LEN else klen) + (0 if vlen == NONE_LEN else vlen)
            if pos + body_end > size:
                continue
            if body_end <= len(block):  # the whole candidate is in the block: check it here
                body = view[i + _HEAD.size : body_end]
                if zlib.crc32(body, zlib.crc32(view[i : i + _LENGTHS.size])) == crc:
                    return pos + i
            elif not _parse(f, pos + i, size).problem:
                return pos + i
        pos += max(1, len(block) - _HEAD.size + 1)
    return None


def check_magic(f: BinaryIO, size: int, name: str) -> bool:
    """True for a cdcwire file; False for a file that is only a torn start of one (shorter
    than the magic and a prefix of it); TransportError for anything else."""
    f.seek(0)
    head = f.read(min(len(MAGIC), size))
    if head == MAGIC:
        return True
    if size < len(MAGIC) and MAGIC.startswith(head):
        return False
    raise TransportError(f"{name}: not a cdcwire message file (bad magic {head!r})")


def appendable_length(f: BinaryIO, size: int, name: str) -> int:
    """Bytes of ``f`` to keep before appending: all of it, less an incomplete last record.

    Reads the whole file (every CRC). Any other damage raises TransportError naming the
    file, record and byte; nothing is changed here either way.
    """
    try:
        if not check_magic(f, size, name):
            return 0
    except TransportError as exc:
        raise TransportError(f"{exc}; refusing to append to it") from None
    pos, record = len(MAGIC), 0
    f.seek(pos)
    while pos < size:
        parsed = _parse(f, pos, size)
        if not parsed.problem:
            pos, record = parsed.end, record + 1
            continue
        if incomplete_last_record(f, pos, parsed.problem, size):
            return pos  # the tail of a write that never finished
        raise TransportError(
            f"{name}: record {record} at byte {pos} {parsed.problem}, and it is not an incomplete"
            " last record: the file is damaged; refusing to append to it (it is left as it was;"
            " read it with skip-damaged=true to see what is intact)"
        )
    return pos


def incomplete_last_record(f: BinaryIO, pos: int, problem: str, size: int) -> bool:
    """Whether the record at byte ``pos`` with this problem is an incomplete last record: the
    file ends inside it (truncated) and no intact record follows it (else it is a damaged
    length with records after it: damage)."""
    return problem.startswith("is truncated") and next_intact(f, pos + 1, size) is None


def damage_error(name: str, record: int, byte: int, problem: str) -> TransportError:
    """What a strict reader raises at damage: where it is, and how to read past it."""
    return TransportError(
        f"{name}: record {record} at byte {byte} {problem}"
        " (read with skip-damaged=true to skip damaged records)"
    )


def count_frames(
    f: BinaryIO, name: str, size: int, begin: tuple[int, int] = (0, len(MAGIC))
) -> tuple[int, Optional[Damage]]:
    """How many records the first ``size`` bytes of ``f`` hold, from their headers alone.

    Why headers only: a count must not cost a read of the whole partition. Each header's
    lengths say where the next record starts, so keys and values are seeked over, never
    read, and no CRC is computed: a payload whose CRC fails still counts as its record (a
    read names it). Returns ``(records, None)`` when the lengths lead exactly to ``size``, or
    to an incomplete last record (not a record yet: see the module docstring; nor is a torn
    magic); else ``(records before it, the first record whose lengths run past size while
    an intact record follows)``, a damaged length, which the caller reports or hands to a
    skipping read. A file that is not a cdcwire file raises TransportError, as it does for
    a read. ``begin``: (offset, byte) of a record known to start there (an offset index
    entry), where the walk starts instead of the first record.
    """
    if not check_magic(f, size, name):
        return 0, None  # a torn start of a file: nothing written yet
    record, pos = begin
    f.seek(pos)
    while pos < size:
        head = f.read(_HEAD.size) if pos + _HEAD.size <= size else b""
        problem = ""
        if len(head) < _HEAD.size:  # the header runs past the end (or the file shrank under us)
            problem = "is truncated (header)"
        else:
            klen, vlen, _ = _HEAD.unpack(head)
            end = pos + _HEAD.size + (0 if klen == NONE_LEN else klen) + (0 if vlen == NONE_LEN else vlen)
            if end > size:
                problem = "is truncated (body)"
        if problem:
            if incomplete_last_record(f, pos, problem, size):
                return record, None
            return record, Damage(name, record, pos, size - pos, problem)
        pos, record = end, record + 1
        f.seek(pos)
    return record, None


def read_frames(
    f: BinaryIO,
    name: str,
    size: Optional[int] = None,
    on_damage: Optional[Callable[[Damage], None]] = None,
    begin: tuple[int, int] = (0, len(MAGIC)),
    note: Optional[Callable[[int, int, int], None]] = None,
    anchors: Sequence[Anchor] = (),
) -> Iterator[tuple[int, Optional[bytes], Optional[bytes]]]:
    """Yield (offset, key, value) of the records in the first ``size`` bytes (default: all).

    Damage raises TransportError with its place, unless ``on_damage`` is given: then the
    damaged stretch is handed to it and reading resumes at the next intact record, with its
    own offset, or stops with a TransportError when that offset cannot be told (see the module
    docstring; ``anchors``: the offset index's entries, which can tell it). An incomplete last
    record (and a torn magic) is no damage: the records end before it.

    ``begin``: (offset, byte) of a record known to start there (an offset index entry: see
    :mod:`.offset_index`), where reading starts instead of the first record. ``note``: called
    with (offset, byte, CRC) of each record read, CRC checked, until the first damage (an
    offset index keeps some of them).
    """
    if size is None:
        f.seek(0, 2)
        size = f.tell()
    if not check_magic(f, size, name):
        return  # a torn start of a file: nothing written yet
    offset, pos = begin
    f.seek(pos)
    while pos < size:
        parsed = _parse(f, pos, size)
        if not parsed.problem:
            if note is not None:
                note(offset, pos, parsed.crc)
            yield offset, parsed.key, parsed.value
            offset, pos = offset + 1, parsed.end
            continue
        truncated = parsed.problem.startswith("is truncated")
        resume = next_intact(f, pos + 1, size) if truncated or on_damage is not None else None
        if truncated and resume is None:
            return  # an incomplete last record: not written yet
        if on_damage is None:
            raise damage_error(name, offset, pos, parsed.problem)
        if resume is None:  # damage to the end: no record after it needs an offset
            on_damage(Damage(name, offset, pos, size - pos, parsed.problem))
            return
        after = _offset_after(f, pos, resume, size, offset, anchors)
        if after is None:
            raise TransportError(
                f"{name}: record {offset} at byte {pos} {parsed.problem}, and its {resume - pos} damaged bytes may"
                " have held any number of records (bytes inserted or deleted): the records after them cannot be"
                " given their own offsets, so the skipping read stops here; copy the file aside and repair it, or"
                f" read what follows byte {resume} as new records"
            )
        note = None  # offsets past damage are not an index's to keep
        on_damage(Damage(name, offset, pos, resume - pos, parsed.problem))
        offset, pos = after, resume
        f.seek(pos)


def _offset_after(f: BinaryIO, pos: int, resume: int, size: int, offset: int,
                  anchors: Sequence[Anchor]) -> Optional[int]:
    """The offset of the intact record at ``resume``, after the damaged stretch from ``pos``
    (the record ``offset`` should have started there), or None when it cannot be told."""
    told = _anchored(f, resume, size, [a for a in anchors if a[0] > offset], offset)
    if told is None and _one_record(f, pos, resume):
        return offset + 1
    return told


def _one_record(f: BinaryIO, pos: int, end: int) -> bool:
    """Whether the damaged stretch ``pos..end`` is provably one record: its lengths span it and
    one flipped bit (of its lengths, key, value or CRC) accounts for its CRC, or one length set
    to fill it makes its CRC check out (that length damaged)."""
    if end - pos > _PROVABLE:
        return False
    f.seek(pos)
    data = f.read(end - pos)
    if len(data) < _HEAD.size:
        return False
    klen, vlen, crc = _HEAD.unpack_from(data)
    body = memoryview(data)[_HEAD.size:]
    kn, vn = (0 if klen == NONE_LEN else klen), (0 if vlen == NONE_LEN else vlen)
    if kn + vn == len(body):
        return _one_bit_off(bytes(data[: _LENGTHS.size]) + bytes(body), crc)
    tried = []
    if len(body) >= vn:  # the key length damaged
        tried += [(len(body) - vn, vlen)] + ([(NONE_LEN, vlen)] if len(body) == vn else [])
    if len(body) >= kn:  # the value length damaged
        tried += [(klen, len(body) - kn)] + ([(klen, NONE_LEN)] if len(body) == kn else [])
    return any(zlib.crc32(body, zlib.crc32(_LENGTHS.pack(k, v))) == crc for k, v in tried)


def _one_bit_off(checked: bytes, crc: int) -> bool:
    """Whether ``checked`` (a record's lengths and payload) and its stored ``crc`` differ by one
    flipped bit. CRC-32 is linear: flipping bit ``b`` of byte ``j`` changes the CRC by
    ``TABLE[1 << b]`` carried through the bytes after ``j`` as through zero bytes, so each of
    the ``8 * len`` flips is one table step from the flip one byte later."""
    off = zlib.crc32(checked) ^ crc
    if off & (off - 1) == 0:
        return True  # one bit of the stored CRC itself
    deltas = [_CRC_TABLE[1 << b] for b in range(8)]
    for _ in range(len(checked)):
        if off in deltas:
            return True
        deltas = [(d >> 8) ^ _CRC_TABLE[d & 0xFF] for d in deltas]
    return False


def _crc_table() -> list[int]:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0xEDB88320 if c & 1 else 0)
        table.append(c)
    return table


_CRC_TABLE = _crc_table()
#: The longest damaged stretch proven one record: the proof takes 8 table steps a byte, and a
#: stretch that is not one record passes it by chance with odds of 8 * length / 2^32.
_PROVABLE = 1 << 16


def _anchored(f: BinaryIO, start: int, size: int, anchors: Sequence[Anchor], least: int) -> Optional[int]:
    """The offset (``least`` or more) of the intact record at ``start``, from the first of
    ``anchors`` (all past the damage): the records from ``start`` walked to the one with its
    CRC, where the anchor after it (if any) is found at the same distance too; None without
    one, or across more damage."""
    if not anchors:
        return None
    (at, byte, crc), following = anchors[0], anchors[1:2]
    pos, walked = start, 0
    while pos < size:
        parsed = _parse(f, pos, size)
        if parsed.problem:
            return None
        if parsed.crc == crc and all(record_crc(f, pos + b - byte, size) == c for _, b, c in following):
            return at - walked
        pos, walked = parsed.end, walked + 1
        if at - walked < least:  # more records than the anchor's offset allows: not found
            return None
    return None
