"""Points in time as options write them, in one grammar for every option that takes a time.

A time is written one of three ways:

- a TSO, TiDB's timestamp (what commit ts and resolved ts are): ``450000000000000000``, or
  ``tso:450000000000000000`` where a bare number means something else (``follow --from``
  takes offsets);
- ``@`` and milliseconds since the epoch, as Kafka stamps its records: ``@1714564800000``;
- ISO-8601: ``2024-05-01T12:00:00Z``, ``2024-05-01 12:00:00+08:00`` (UTC when no zone is given).

Each is turned into both forms a reader needs: ``tso`` (compared with commit ts) and ``ms``
(looked up in Kafka's time index). A TSO's physical part is its milliseconds (``tso >> 18``);
a time in milliseconds is the TSO ``ms << 18`` (logical part 0).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from .errors import CdcwireError

#: Bits of a TSO below its physical milliseconds (TiDB's logical counter).
LOGICAL_BITS = 18
#: The forms, as the options' help and errors name them.
TIME_FORMS = "a TSO, '@' and milliseconds since the epoch (@1714564800000) or ISO-8601 (2024-05-01T12:00:00Z)"
#: The forms where a bare number is an offset (``follow --from``): the TSO is written ``tso:N``.
TIME_FORMS_BESIDE_OFFSETS = TIME_FORMS.replace("a TSO", "'tso:' and a TSO")

_DIGITS = re.compile(r"[0-9]+", re.ASCII)


class TimeError(CdcwireError, ValueError):
    """A time that is none of the forms."""


@dataclass(frozen=True, slots=True)
class TimePoint:
    """A point in time as a TSO and as milliseconds since the epoch."""

    tso: int

    @property
    def ms(self) -> int:
        return self.tso >> LOGICAL_BITS

    @classmethod
    def of_ms(cls, ms: int) -> "TimePoint":
        return cls(ms << LOGICAL_BITS)


def parse_time(text: str, option: str = "time", bare_number: str = "tso") -> TimePoint:
    """``text`` in one of the forms (module docstring); TimeError naming ``option`` otherwise.

    ``bare_number="tso"``: a bare number is a TSO. An option where a bare number is something
    else (an offset) handles it before calling and passes ``bare_number=""``: then only
    ``tso:N``, ``@MS`` and ISO-8601 are times.
    """
    word = str(text).strip()
    if word.startswith("tso:") and _DIGITS.fullmatch(word[4:]):
        return TimePoint(int(word[4:]))
    if bare_number == "tso" and _DIGITS.fullmatch(word):
        return TimePoint(int(word))
    if word.startswith("@") and _DIGITS.fullmatch(word[1:]):
        return TimePoint.of_ms(int(word[1:]))
    if word[:4].isascii() and word[:4].isdigit() and len(word) >= 10 and word[4:5] == "-":
        try:
            moment = datetime.fromisoformat(word.replace("z", "Z"))
        except ValueError:
            pass
        else:
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
            ms = (moment - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(milliseconds=1)
            if ms >= 0:
                return TimePoint.of_ms(ms)
    forms = TIME_FORMS if bare_number == "tso" else TIME_FORMS_BESIDE_OFFSETS
    raise TimeError(f"{option} {word!r} is not a time: write {forms}")
