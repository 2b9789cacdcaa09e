"""The options ``format("cdcwire")`` reads take, batch and stream: names, values, and a clear
error for any other.

Names and value formats follow Spark's Kafka source where the meaning is the same
(``startingOffsets``, ``endingOffsets``, ``failOnDataLoss``, ``maxOffsetsPerTrigger``), so a
reader of Spark's guide needs nothing new. Spark hands a Python data source its option
names lower-cased; errors show them as documented.
"""

from __future__ import annotations

import json
from typing import Mapping, Optional

from ...data_loss import fail_on_data_loss
from ...errors import CdcwireError

#: Options of ``spark.read.format("cdcwire")``, as documented (``ranges``: set by cdcwire.spark.read).
BATCH_OPTIONS = (
    "source-uri", "topics", "startingOffsets", "endingOffsets", "failOnDataLoss", "mode", "tables",
    "start-offset", "offsets", "ranges",
)
#: Options of ``spark.readStream.format("cdcwire")``.
STREAM_OPTIONS = ("source-uri", "topics", "startingOffsets", "maxOffsetsPerTrigger", "failOnDataLoss", "mode", "tables")

#: Offsets in ``startingOffsets`` JSON that stand for the earliest and the latest, as Spark's Kafka source.
EARLIEST, LATEST = -2, -1


def place_key(topic: str, partition: int) -> str:
    """A topic-partition as an offset key: ``topic/partition``."""
    return f"{topic}/{partition}"


def is_permissive(options: Mapping[str, object]) -> bool:
    """``mode``: FAILFAST (the default: an undecodable message fails the read) or PERMISSIVE
    (it becomes a row with ``_malformed`` set)."""
    mode = str(options.get("mode", "FAILFAST")).upper()
    if mode not in ("FAILFAST", "PERMISSIVE"):
        raise CdcwireError(f"option mode must be FAILFAST or PERMISSIVE, got {mode!r}")
    return mode == "PERMISSIVE"


def lower_cased(options: Mapping[str, object]) -> dict[str, object]:
    return {str(k).lower(): v for k, v in options.items()}


def refuse_unknown(options: Mapping[str, object], accepted: tuple[str, ...], what: str) -> None:
    """Raise naming the first option ``accepted`` lacks, and the accepted ones."""
    known = {name.lower() for name in accepted}
    unknown = sorted(k for k in lower_cased(options) if k not in known)
    if unknown:
        raise CdcwireError(
            f"{what} has no option {unknown[0]!r}; it takes {', '.join(accepted)}"
        )


def ending_offsets(text: Optional[object]) -> dict[str, int]:
    """``endingOffsets``: ``"latest"`` (the default: each partition's high watermark when the read
    is planned) or ``{"topic": {"0": 50, "1": -1}}`` (-1: latest; partitions not named: latest)."""
    value = str(text if text is not None else "latest").strip()
    if value.lower() in ("", "latest"):
        return {}
    shape = 'latest or JSON such as {"topic": {"0": 50, "1": -1}} (-1: latest)'
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict) or not parsed:
        raise CdcwireError(f"option endingOffsets must be {shape}; got {value!r}")
    ends: dict[str, int] = {}
    for topic, partitions in parsed.items():
        if not isinstance(partitions, dict):
            raise CdcwireError(f"option endingOffsets: {topic!r} must map partitions to offsets; {shape}")
        for partition, offset in partitions.items():
            if not str(partition).isdigit() or type(offset) is not int or offset < -1:
                raise CdcwireError(
                    f"option endingOffsets: {topic}/{partition}: {offset!r} is not an end offset"
                    " (a number >= 0, or -1 latest; -2 earliest is not allowed, as in Spark's Kafka source)"
                )
            ends[f"{topic}/{int(partition)}"] = offset
    return ends


def batch_starts(options: Mapping[str, object]) -> tuple[Optional[int], str]:
    """Where a batch read starts: ``(start_offset, offsets JSON)`` for
    :func:`~.message_ranges.plan_message_ranges`, from ``startingOffsets`` (earliest, latest or
    JSON as Spark's Kafka source takes it) or the older ``start-offset`` / ``offsets``."""
    opts = lower_cased(options)
    if "startingoffsets" in opts:
        if "start-offset" in opts or "offsets" in opts:
            raise CdcwireError("give startingOffsets or start-offset/offsets, not both")
        starting = starting_offsets(str(opts["startingoffsets"]))
        if starting == "earliest":
            return None, ""
        if starting == "latest":
            return -1, ""
        return None, json.dumps(starting)
    start = opts.get("start-offset")
    return (None if start in (None, "", "earliest") else int(str(start))), str(opts.get("offsets") or "")


def data_loss_fails(options: Mapping[str, object]) -> bool:
    """``failOnDataLoss`` (default true)."""
    return fail_on_data_loss(lower_cased(options).get("failondataloss"))


def starting_offsets(text: str) -> object:
    """``"earliest"``, ``"latest"``, or ``{topic: {partition: offset}}`` with -2 earliest, -1 latest."""
    value = (text or "earliest").strip()
    if value.lower() in ("earliest", "latest"):
        return value.lower()
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    shape = 'earliest, latest or JSON such as {"topic": {"0": 23, "1": -2}} (-2: earliest, -1: latest)'
    if not isinstance(parsed, dict) or not parsed:
        raise CdcwireError(f"option startingOffsets must be {shape}; got {value!r}")
    starts: dict[str, int] = {}
    for topic, partitions in parsed.items():
        if not isinstance(partitions, dict):
            raise CdcwireError(f"option startingOffsets: {topic!r} must map partitions to offsets; {shape}")
        for partition, offset in partitions.items():
            digits = str(partition).isascii() and str(partition).isdigit()  # not "²", which int() refuses
            if not digits or type(offset) is not int or offset < EARLIEST:
                raise CdcwireError(
                    f"option startingOffsets: {topic}/{partition}: {offset!r} is not an offset"
                    " (a number >= 0, -2 earliest, -1 latest)"
                )
            starts[place_key(topic, int(partition))] = offset
    return starts
