"""What the core's event validation costs each codec: raw against checked encode and decode.

    .venv/bin/python benchmarks/validation_cost.py [--events 20000] [--repeat 5] [--slice 512]

Every encode and decode through the core goes through ``cdcwire.api.codec_calls``:
``encoder_for`` wraps the codec's encoder in CheckedEncoder (``check_events`` on the
list first) and ``decoder_for`` wraps its decoder in CheckedDecoder (``check_event`` on
each decoded event). This times, per codec, on the shared OLTP workload
(``oltp_workload.oltp_events``: one 10-column table, 60/25/15 insert/update/delete):

- encode: ``open_sink(config).codec.encoder(config, topic, 0)`` (raw) against
  ``encoder_for(config, topic, 0)`` (checked), a list of events in, all payloads out;
- decode: the messages the raw encoder wrote, as ``cdcwire.Message``, through
  ``open_sink(config).codec.decoder(config)`` (raw) against ``decoder_for(config)`` (checked);
- ``check_events`` alone, on the workload and on each codec's decoded events (what the
  checked decoder should add to the raw one if nothing else differs).

Codecs: open-protocol, craft, canal-json and avro (both with enable-tidb-extension=true;
avro with topic-rule=tidb_{schema}_{table} against the local Schema Registry,
cdcwire_avro.testing.LocalSchemaRegistry), defaults otherwise (open-protocol and craft
batch up to 16 rows a message).

Before anything is timed, raw and checked must write the same bytes (canal-json's "ts",
the wall clock at encoding, pinned for that comparison only) and give the same events,
and the decoded events must be what the codec says it carries: the two sides of a ratio
do the same work. The timed encoders and decoders are those ones, warm (one of each per
side, as a long-running sink holds one per topic-partition).

The machine is shared, so the clock is this thread's CPU time (``time.thread_time``: a
wait for a core that other work holds is not counted) and the timing is done in slices
of about ``--slice`` events (a multiple of 16, so a batching codec's messages are the
same as in one pass): for each slice, raw and checked run in turn ``--repeat`` times, the
best of each counts, and a rate is events over the sum of a side's best slices. What
load elsewhere still costs (caches, memory bandwidth) spoils a slice's round, not a whole
pass, and both sides alike. The garbage collector is off while timing (as in timeit):
nothing a slice makes outlives it. Trust the ratios (same run, same slices) over the rates.
"""

from __future__ import annotations

import argparse
import gc
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from cdcwire import Event, Message, RowChangedEvent
from cdcwire.api.functions import dispatch
from cdcwire.api.codec_calls import decoder_for, encoder_for
from cdcwire.sinks.sink import parse_sink_uri, protocol_config
from cdcwire.uris.sink_uri import SinkConfig
from cdcwire.model.validation import check_events
from cdcwire_avro.testing import LocalSchemaRegistry
from cdcwire.sinks.sink import open_sink

from oltp_workload import oltp_events

PROTOCOLS = ("open-protocol", "craft", "canal-json", "avro")
PINNED_MS = 1_795_334_400_000


def config_for(protocol: str, registry_url: str) -> SinkConfig:
    if protocol == "avro":
        return parse_sink_uri(
            "file:///tmp/cdcwire-bench/t?protocol=avro&enable-tidb-extension=true"
            f"&topic-rule=tidb_{{schema}}_{{table}}&schema-registry={registry_url}"
        )
    if protocol == "canal-json":
        return protocol_config(protocol, **{"enable-tidb-extension": "true"})
    return protocol_config(protocol)


@dataclass(slots=True)
class Subject:
    """One codec, ready to time: warm raw and checked encoders and decoders, the workload's
    messages cut along the event slices, and the decoded events cut alike."""

    name: str
    encoders: dict[str, Any]
    decoders: dict[str, Any]
    messages: list[list[Message]]
    decoded: list[list[Event]]
    message_count: int
    mean_bytes: float


def _payloads(encoder: Any, events: list[RowChangedEvent]) -> list[tuple[Any, ...]]:
    return [(p.key, p.value, p.events) for p in encoder.encode(events)]


def _decode_all(decoder: Any, messages: Sequence[Message]) -> list[Event]:
    out: list[Event] = []
    for m in messages:
        out.extend(decoder.decode(m))
    return out


def prepared(name: str, config: SinkConfig, events: list[RowChangedEvent], cuts: list[slice]) -> Subject:
    """The codec's subject, once it is shown that raw and checked do the same work."""
    [(topic, _)] = dispatch(open_sink(config), events[:1])  # avro's is the topic-rule's: tidb_shop_orders
    encoders = {"raw": open_sink(config).codec.encoder(config, topic, 0), "checked": encoder_for(config, topic, 0)}
    inner = [encoders["raw"], encoders["checked"].encoder]
    clocks = [getattr(e, "_clock", None) for e in inner]
    for encoder, clock in zip(inner, clocks):
        if clock is not None:  # canal-json's "ts" is the wall clock at encoding: pinned to compare
            encoder._clock = lambda: PINNED_MS
    raw, checked = (_payloads(encoders[side], events) for side in ("raw", "checked"))
    for encoder, clock in zip(inner, clocks):
        if clock is not None:
            encoder._clock = clock  # the real clock while timing: its cost is part of encoding
    if raw != checked:
        raise SystemExit(f"{name}: the raw and the checked encoder wrote different payloads")
    if sum(p[2] for p in raw) != len(events):
        raise SystemExit(f"{name}: the payloads carry {sum(p[2] for p in raw)} events, not {len(events)}")
    messages = [Message(topic, 0, key, value, i) for i, (key, value, _) in enumerate(raw)]
    decoders = {"raw": open_sink(config).codec.decoder(config), "checked": decoder_for(config)}
    back = _decode_all(decoders["raw"], messages)
    if _decode_all(decoders["checked"], messages) != back:
        raise SystemExit(f"{name}: the raw and the checked decoder gave different events")
    carried = [open_sink(config).codec.carrier(config)(e) for e in events]
    if back != [e for e in carried if e is not None] or len(back) != len(events):
        raise SystemExit(f"{name}: decode(encode(events)) differs from what the codec says it carries")

    # the messages of each event slice: every slice starts on a message boundary, since the
    # batching codecs cut a message every 16 rows and a slice is a multiple of 16
    message_cuts, first, held = [], 0, 0
    ends = {cut.stop for cut in cuts}
    for i, (_, _, count) in enumerate(raw):
        held += count
        if held in ends:
            message_cuts.append(messages[first:i + 1])
            first = i + 1
    if len(message_cuts) != len(cuts):
        raise SystemExit(f"{name}: a message straddles two slices; the slices would not compare")
    return Subject(
        name, encoders, decoders, message_cuts, [back[cut] for cut in cuts],
        len(messages), sum(m.size for m in messages) / len(messages),
    )


def sliced_seconds(runs: dict[str, Callable[[int], object]], slices: int, repeat: int) -> dict[str, float]:
    """For each slice, every run ``repeat`` times in turn; the sum over slices of each one's best."""
    total = dict.fromkeys(runs, 0.0)
    clock = time.thread_time
    gc.collect()
    gc.disable()
    try:
        for k in range(slices):
            best = dict.fromkeys(runs, float("inf"))
            for _ in range(repeat):
                for label, run in runs.items():
                    start = clock()
                    run(k)
                    best[label] = min(best[label], clock() - start)
            for label in runs:
                total[label] += best[label]
    finally:
        gc.enable()
    return total


def encode_run(encoder: Any, parts: list[list[RowChangedEvent]]) -> Callable[[int], object]:
    return lambda k: list(encoder.encode(parts[k]))


def decode_run(decoder: Any, parts: list[list[Message]]) -> Callable[[int], object]:
    return lambda k: _decode_all(decoder, parts[k])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--slice", type=int, default=512, help="events a slice (rounded to a multiple of 16)")
    args = parser.parse_args()
    size = max(16, args.slice // 16 * 16)

    events = oltp_events(args.events)
    n = len(events)
    cuts = [slice(i, min(i + size, n)) for i in range(0, n, size)]
    parts = [events[cut] for cut in cuts]
    rows = []
    with LocalSchemaRegistry() as registry:
        check_alone = sliced_seconds({"check": lambda k: check_events(parts[k])}, len(cuts), args.repeat)
        for name in PROTOCOLS:
            s = prepared(name, config_for(name, registry.url), events, cuts)
            enc = sliced_seconds({side: encode_run(s.encoders[side], parts) for side in s.encoders},
                                 len(cuts), args.repeat)
            dec = sliced_seconds({side: decode_run(s.decoders[side], s.messages) for side in s.decoders},
                                 len(cuts), args.repeat)
            check_decoded = {"check": lambda k, s=s: check_events(s.decoded[k])}
            alone = sliced_seconds(check_decoded, len(cuts), args.repeat)
            rates = {"enc raw": n / enc["raw"], "enc checked": n / enc["checked"],
                     "dec raw": n / dec["raw"], "dec checked": n / dec["checked"],
                     "check decoded": n / alone["check"]}
            rows.append((name, s.message_count, s.mean_bytes, rates))
    check_rate = n / check_alone["check"]

    print(f"validation cost per codec: {n} row events of shop.orders (10 columns; 60/25/15"
          f" insert/update/delete), slices of {size} events, best of {args.repeat} a slice")
    print()
    print("| codec | messages (mean bytes) | encode raw ev/s | encode checked ev/s | ratio"
          " | decode raw ev/s | decode checked ev/s | ratio | check_events on decoded ev/s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, count, mean_bytes, r in rows:
        print(f"| {name} | {count:,} ({mean_bytes:,.0f}) | {r['enc raw']:,.0f} | {r['enc checked']:,.0f}"
              f" | {r['enc checked'] / r['enc raw']:.2f} | {r['dec raw']:,.0f} | {r['dec checked']:,.0f}"
              f" | {r['dec checked'] / r['dec raw']:.2f} | {r['check decoded']:,.0f} |")
    print()
    us = 1e6 / check_rate
    print(f"check_events alone on the workload: {check_rate:,.0f} ev/s ({us:.2f} µs an event)")
    print("ratio = checked ev/s / raw ev/s (1.00: validation costs nothing). Added µs an event:")
    for name, _, _, r in rows:
        enc_us = 1e6 / r["enc checked"] - 1e6 / r["enc raw"]
        dec_us = 1e6 / r["dec checked"] - 1e6 / r["dec raw"]
        decoded_us = 1e6 / r["check decoded"]
        print(f"  {name:<14} encode {enc_us:+6.2f} (check_events on the workload {us:5.2f})"
              f"   decode {dec_us:+6.2f} (check_events on the decoded events {decoded_us:5.2f})")


if __name__ == "__main__":
    main()
