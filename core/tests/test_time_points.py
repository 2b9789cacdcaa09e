"""Times as options take them: a TSO, ``@`` and milliseconds, or ISO-8601, in one grammar."""

from __future__ import annotations

import pytest

from cdcwire.api.following import StartAt
from cdcwire.foundation.time_points import TimeError, TimePoint, parse_time

# 2024-05-01T12:00:00Z
MS = 1714564800000
TSO = MS << 18


def test_a_bare_number_is_a_tso():
    assert parse_time(str(TSO + 5)) == TimePoint(TSO + 5)


def test_tso_colon_is_a_tso_where_a_bare_number_means_an_offset():
    assert parse_time(f"tso:{TSO}", bare_number="") == TimePoint(TSO)


def test_at_milliseconds_is_the_tso_of_that_millisecond():
    point = parse_time(f"@{MS}")
    assert (point.tso, point.ms) == (TSO, MS)


@pytest.mark.parametrize(
    "text", ["2024-05-01T12:00:00Z", "2024-05-01T12:00:00+00:00", "2024-05-01 20:00:00+08:00", "2024-05-01T12:00:00"]
)
def test_iso_8601_with_a_zone_or_without_one_as_utc(text):
    assert parse_time(text) == TimePoint(TSO)


def test_iso_8601_keeps_milliseconds():
    assert parse_time("2024-05-01T12:00:00.250Z").ms == MS + 250


def test_a_tso_and_its_milliseconds_name_the_same_physical_time():
    assert parse_time(str(TSO + 123)).ms == parse_time(f"@{MS}").ms == parse_time("2024-05-01T12:00:00Z").ms


@pytest.mark.parametrize("text", ["yesterday", "@12ab", "2024-13-01T00:00:00Z", "-5", "@-5", ""])
def test_anything_else_is_an_error_that_names_the_option_and_the_three_forms(text):
    with pytest.raises(TimeError) as info:
        parse_time(text, "--until")
    message = str(info.value)
    assert message.startswith(f"--until {text.strip()!r} is not a time: write a TSO, '@' and milliseconds")
    assert "ISO-8601 (2024-05-01T12:00:00Z)" in message


def test_a_bare_number_is_not_a_time_where_it_means_an_offset():
    with pytest.raises(TimeError, match="write 'tso:' and a TSO"):
        parse_time("12", "--from", bare_number="")


@pytest.mark.parametrize(
    "text, start",
    [
        ("beginning", StartAt("beginning")),
        ("12", StartAt("offset", 12)),
        ("-3", StartAt("offset", -3)),
        (f"@{MS}", StartAt("timestamp", MS)),
        ("2024-05-01T12:00:00Z", StartAt("timestamp", MS)),
        (f"tso:{TSO}", StartAt("timestamp", MS)),
    ],
)
def test_a_start_position_takes_offsets_and_every_time_form(text, start):
    assert StartAt.parse(text) == start
