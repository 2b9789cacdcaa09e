"""The options ``format("cdcwire")`` reads take, batch and stream: names, values, and a clear
error for any other.

Names and value formats follow Spark's Kafka source where the meaning is the same
(``startingOffsets``, ``endingOffsets``, ``failOnDataLoss``, ``maxOffsetsPerTrigger``,
``startingTimestamp``, ``startingOffsetsByTimestamp``), so a reader of Spark's guide needs
nothing new. Spark hands a Python data source its option
names lower-cased; errors show them as documented.
"""

from __future__ import annotations

import json
from typing import Mapping, Optional, Union

from ...transports.data_loss import fail_on_data_loss
from ...foundation.errors import CdcwireError

#: Options of ``spark.read.format("cdcwire")``, as documented (``ranges``: set by cdcwire.spark.read).
BATCH_OPTIONS = (
    "source-uri", "topics", "startingOffsets", "endingOffsets", "failOnDataLoss", "mode", "tables",
    "start-offset", "offsets", "ranges", "output",
    "startingTimestamp", "startingOffsetsByTimestamp",
)
#: Options of ``spark.readStream.format("cdcwire")``.
STREAM_OPTIONS = (
    "source-uri", "topics", "startingOffsets", "maxOffsetsPerTrigger", "failOnDataLoss", "mode", "tables",
    "startingTimestamp", "startingOffsetsByTimestamp", "kafka.*", "schemaLookbackMessages",
)
#: The prefix of options passed to the transport's client (Spark's Kafka source's ``kafka.*``).
CLIENT_PREFIX = "kafka."
#: The URI parameter of a transport that takes them (``kafka://``'s, see transports.kafka.consumer_settings).
CLIENT_SETTINGS_PARAMETER = "consumer-settings"

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


def gives_messages(options: Mapping[str, object]) -> bool:
    """``output``: ``events`` (the default: messages decoded on the executors) or ``messages``
    (each message as it is: topic, partition, offset, key, value; for a decoder of your own,
    or the JVM's: see :mod:`cdcwire.spark.reader.jvm_decoding`). Batch reads only."""
    output = str(options.get("output", "events")).lower()
    if output not in ("events", "messages"):
        raise CdcwireError(f"option output must be events or messages, got {output!r}")
    return output == "messages"


def lower_cased(options: Mapping[str, object]) -> dict[str, object]:
    return {str(k).lower(): v for k, v in options.items()}


def refuse_unknown(options: Mapping[str, object], accepted: tuple[str, ...], what: str) -> None:
    """Raise naming the first option ``accepted`` lacks, and the accepted ones."""
    known = {name.lower() for name in accepted}
    prefixes = tuple(name[:-1] for name in known if name.endswith(".*"))
    unknown = sorted(k for k in lower_cased(options) if k not in known and not (prefixes and k.startswith(prefixes)))
    if unknown:
        raise CdcwireError(
            f"{what} has no option {unknown[0]!r}; it takes {', '.join(accepted)}"
        )


def per_partition(option: str, value: str, shape: str, what: str, lowest: int) -> dict[str, int]:
    """``{"topic": {"0": n, ...}}`` as ``{"topic/0": n}``: the one reading of Spark's per-partition
    option values (starting and ending offsets, start times). A partition is ASCII digits (not
    ``"²"``, which ``int()`` refuses) and each value an int >= ``lowest``; anything else is one
    error naming the option, the place and ``what`` it must be."""
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict) or not parsed:
        raise CdcwireError(f"option {option} must be {shape}; got {value!r}")
    found: dict[str, int] = {}
    for topic, partitions in parsed.items():
        if not isinstance(partitions, dict):
            raise CdcwireError(f"option {option}: {topic!r} must map partitions to values; {shape}")
        for partition, number in partitions.items():
            digits = str(partition).isascii() and str(partition).isdigit()
            if not digits or type(number) is not int or number < lowest:
                raise CdcwireError(f"option {option}: {topic}/{partition}: {number!r} is not {what}")
            found[place_key(topic, int(partition))] = number
    return found


def ending_offsets(text: Optional[object]) -> dict[str, int]:
    """``endingOffsets``: ``"latest"`` (the default: each partition's high watermark when the read
    is planned) or ``{"topic": {"0": 50, "1": -1}}`` (-1: latest; partitions not named: latest)."""
    value = str(text if text is not None else "latest").strip()
    if value.lower() in ("", "latest"):
        return {}
    shape = 'latest or JSON such as {"topic": {"0": 50, "1": -1}} (-1: latest)'
    return per_partition(
        "endingOffsets", value, shape,
        "an end offset (a number >= 0, or -1 latest; -2 earliest is not allowed, as in Spark's Kafka source)", -1,
    )


def batch_starts(options: Mapping[str, object]) -> tuple[Optional[int], str]:
    """Where a batch read starts: ``(start_offset, offsets JSON)`` for
    :func:`~.message_ranges.plan_message_ranges`, from ``startingOffsets`` (earliest, latest or
    JSON as Spark's Kafka source takes it) or the older ``start-offset`` / ``offsets``."""
    opts = lower_cased(options)
    times = starting_times(opts)
    if times is not None:
        if "start-offset" in opts or "offsets" in opts:
            raise CdcwireError("give startingTimestamp/startingOffsetsByTimestamp or start-offset/offsets, not both")
        from .message_ranges import offsets_at_times

        return None, json.dumps(offsets_at_times(str(opts.get("source-uri") or ""), str(opts.get("topics") or ""), times))
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


def starting_times(options: Mapping[str, object]) -> Union[None, int, dict[str, int]]:
    """Where a read starts by time, as Spark's Kafka source takes it: ``startingTimestamp`` (ms since
    the epoch, every partition: an int) or ``startingOffsetsByTimestamp`` (``{"topic": {"0": ms}}``,
    every partition named: ``{"topic/0": ms}``); None when neither is given. Each partition starts
    at its first message of that time or later (:func:`~.message_ranges.offsets_at_times`).

    One start per read: giving two of these and ``startingOffsets`` is refused rather than one
    silently winning (Spark's Kafka source ranks them)."""
    opts = lower_cased(options)
    given = [name for name in ("startingTimestamp", "startingOffsetsByTimestamp", "startingOffsets") if name.lower() in opts]
    if not set(given) & {"startingTimestamp", "startingOffsetsByTimestamp"}:
        return None
    if len(given) > 1:
        raise CdcwireError(f"give one of {', '.join(given)}: each says where the read starts")
    if given[0] == "startingTimestamp":
        text = str(opts["startingtimestamp"]).strip()
        if not (text.isascii() and text.isdigit()):
            raise CdcwireError(f"option startingTimestamp must be milliseconds since the epoch (1700000000000); got {text!r}")
        return int(text)
    value = str(opts["startingoffsetsbytimestamp"]).strip()
    shape = 'JSON such as {"topic": {"0": 1700000000000, "1": 1700000000000}} (ms since the epoch)'
    return per_partition("startingOffsetsByTimestamp", value, shape, "a time (ms since the epoch, a number >= 0)", 0)


def with_client_settings(uri: str, options: Mapping[str, object]) -> str:
    """``uri`` with the ``kafka.*`` options as its transport's ``consumer-settings`` parameter (the
    URI is what the driver and the executors open the source from, so they travel with it);
    ``uri`` itself when there are none. A transport that takes no client settings is refused,
    naming the option."""
    settings = {k[len(CLIENT_PREFIX):]: str(v) for k, v in lower_cased(options).items() if k.startswith(CLIENT_PREFIX)}
    if not settings:
        return uri
    from ...sinks.sink import open_sink

    sink = open_sink(uri)
    first = f"{CLIENT_PREFIX}{sorted(settings)[0]}"
    if CLIENT_SETTINGS_PARAMETER not in {p.name for p in sink.needs_transport().parameters}:
        raise CdcwireError(
            f"option {first}: {sink.config.scheme}:// has no Kafka client to pass kafka.* options to; leave them out"
        )
    if CLIENT_SETTINGS_PARAMETER in sink.config.given:
        raise CdcwireError(f"option {first}: give kafka.* options or the URI's {CLIENT_SETTINGS_PARAMETER}, not both")
    from urllib.parse import quote

    joined = f"{CLIENT_SETTINGS_PARAMETER}={quote(json.dumps(settings, sort_keys=True), safe='')}"
    uri_with = f"{uri}{'&' if '?' in uri else '?'}{joined}"
    try:
        open_sink(uri_with)
    except CdcwireError as exc:  # a setting cdcwire keeps for itself
        raise CdcwireError(f"kafka.* options: {exc}") from None
    return uri_with


def starting_offsets(text: str) -> object:
    """``"earliest"``, ``"latest"``, or ``{topic: {partition: offset}}`` with -2 earliest, -1 latest."""
    value = (text or "earliest").strip()
    if value.lower() in ("earliest", "latest"):
        return value.lower()
    shape = 'earliest, latest or JSON such as {"topic": {"0": 23, "1": -2}} (-2: earliest, -1: latest)'
    return per_partition("startingOffsets", value, shape, "an offset (a number >= 0, -2 earliest, -1 latest)", EARLIEST)
