"""Dates and times as Debezium's ``io.debezium.time.*`` numbers, and back.

Proleptic Gregorian day numbers of any year 0-9999 (Python's ``datetime`` stops at year 1,
MySQL and Go's ``time`` do not). TiCDC's quirks kept: a date or datetime whose year is
below 70 is read as 20xx, below 100 as 19xx (Debezium's two-digit-year rule); an invalid
one (``0000-00-00``) has no number.
"""

from __future__ import annotations

import re
from typing import Optional

_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATETIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?")
_TIME = re.compile(r"(-?)(\d{1,3}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?")
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
MICROS_PER_DAY = 86_400_000_000
#: TiDB's MinTimestamp, 1970-01-01 00:00:01 UTC, in microseconds.
MIN_TIMESTAMP_MICROS = 1_000_000


def _leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z: int) -> tuple[int, int, int]:
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return y + (m <= 2), m, d


def _valid(y: int, m: int, d: int) -> bool:
    if not 1 <= m <= 12 or d < 1:
        return False
    return d <= (29 if m == 2 and _leap(y) else _DAYS_IN_MONTH[m - 1])


def _two_digit_year(y: int) -> int:
    return y + 2000 if y < 70 else y + 1900 if y < 100 else y


def date_days(text: str) -> Optional[int]:
    """``io.debezium.time.Date`` of a DATE text, None for an invalid date."""
    m = _DATE.fullmatch(text)
    if m is None:
        return None
    y, mo, d = int(m[1]), int(m[2]), int(m[3])
    if not _valid(y, mo, d):
        return None
    return days_from_civil(_two_digit_year(y), mo, d)


def date_text(days: int) -> str:
    y, m, d = civil_from_days(days)
    return f"{y:04d}-{m:02d}-{d:02d}"


def _fraction_micros(frac: Optional[str]) -> int:
    return int((frac or "").ljust(6, "0"))


def datetime_micros(text: str, shift_years: bool = True) -> Optional[int]:
    """Microseconds since the epoch of a DATETIME/TIMESTAMP text read as UTC, None when invalid."""
    m = _DATETIME.fullmatch(text)
    if m is None:
        return None
    y, mo, d, h, mi, s = (int(m[i]) for i in range(1, 7))
    if not _valid(y, mo, d) or h > 23 or mi > 59 or s > 59:
        return None
    if shift_years:
        y = _two_digit_year(y)
    return (days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s) * 1_000_000 + _fraction_micros(m[7])


def fraction_digits(text: str) -> int:
    """How many fraction digits a date/time text shows: its fsp when no type says it."""
    dot = text.rfind(".")
    return 0 if dot < 0 else len(text) - dot - 1


def datetime_text(micros: int, digits: int) -> str:
    """``YYYY-MM-DD HH:MM:SS`` with ``digits`` fraction digits (cut, not rounded)."""
    days, rest = divmod(micros, MICROS_PER_DAY)
    y, mo, d = civil_from_days(days)
    secs, us = divmod(rest, 1_000_000)
    h, secs = divmod(secs, 3600)
    mi, s = divmod(secs, 60)
    text = f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}"
    return text + "." + f"{us:06d}"[:digits] if digits else text


def time_micros(text: str) -> Optional[int]:
    """``io.debezium.time.MicroTime`` of a TIME text (negative allowed), None when invalid."""
    m = _TIME.fullmatch(text)
    if m is None or int(m[3]) > 59 or int(m[4]) > 59:
        return None
    total = (int(m[2]) * 3600 + int(m[3]) * 60 + int(m[4])) * 1_000_000 + _fraction_micros(m[5])
    return -total if m[1] else total


def time_text(micros: int) -> str:
    """A TIME text: six fraction digits when the value has a fraction, none otherwise."""
    sign = "-" if micros < 0 else ""
    secs, us = divmod(abs(micros), 1_000_000)
    h, secs = divmod(secs, 3600)
    mi, s = divmod(secs, 60)
    text = f"{sign}{h:02d}:{mi:02d}:{s:02d}"
    return f"{text}.{us:06d}" if us else text
