"""``cdcwire demo``: the embedded default end to end.

Generate a workload, run it through every installed protocol (or those ``--protocols`` names) to file sinks on
Spark (each with the parameters its codec asks for: avro starts a Schema Registry
in-process and writes one topic per table),
read everything back, check it equals the input as each protocol carries it
(``Codec.carried``), and print one table of sizes and rates.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from .spark_flags import add_spark_flags, progress, session_for


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("demo", help="generate -> every protocol on Spark -> read back -> verify; print sizes and rates")
    p.add_argument("--events", type=int, default=20000, help="events to generate (default 20000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="working directory, kept (default: a temporary one, removed at the end)")
    p.add_argument("--protocols", metavar="NAME,...",
                   help="only these installed protocols (default: every one), e.g. a plugin of your own")
    add_spark_flags(p)
    return p


def demo_uri(sink_dir: Path, protocol: str, services: contextlib.ExitStack) -> str:
    """The file sink URI of one protocol in the demo, with the parameters its codec asks for
    (:meth:`cdcwire.contract.codec.Codec.demo_parameters`): the demo names no protocol itself."""
    from ..sinks.installed import get_registry

    params = {"protocol": protocol, **get_registry().codec(protocol).demo_parameters(services), "partition-num": "3"}
    return f"file://{sink_dir}/events?{urlencode(params, safe='{}:/')}"


def run(args: argparse.Namespace) -> int:
    from .. import protocols
    from ..foundation.extras import extra_required

    with extra_required("spark", "cdcwire demo (it runs on Spark)"):
        from .. import spark  # noqa: F401  (a missing pyspark is named before any work)

    names = protocols()
    if not names:
        print("cdcwire demo: no protocol plugin is installed", file=sys.stderr)
        return 2
    if args.protocols:
        chosen = [n.strip() for n in args.protocols.split(",") if n.strip()]
        unknown = [n for n in chosen if n not in names]
        if unknown or not chosen:
            print(f"cdcwire demo: --protocols names {', '.join(unknown) or 'nothing'}: not an installed protocol;"
                  f" installed: {', '.join(names)}", file=sys.stderr)
            return 2
        names = chosen
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        return _one_line_failures(args, out, names)
    out = Path(tempfile.mkdtemp(prefix="cdcwire-demo-"))
    try:  # a run of its own leaves nothing behind (20,000 events make ~100 MB of sinks)
        return _one_line_failures(args, out, names)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _one_line_failures(args: argparse.Namespace, out: Path, names: list[str]) -> int:
    """The demo, its Spark failures (out of memory...) one line as ``run`` says them, not a JVM trace."""
    from ..foundation.errors import CdcwireError
    from .run_command import _one_line, spark_failure

    try:
        return _demo(args, out, names)
    except CdcwireError as exc:
        raise CdcwireError(_one_line(str(exc), exc)) from None
    except Exception as exc:
        raise CdcwireError(_one_line(spark_failure(exc), exc)) from None


def _demo(args: argparse.Namespace, out: Path, names: list[str]) -> int:
    from .. import spark as cs
    from ..spark.writer.verify import compare
    from ..workload import Workload, write_workload

    workload = out / "workload.jsonl"
    t0 = time.monotonic()
    n = write_workload(Workload(args.events, seed=args.seed), str(workload))
    print(f"generated {n} events in {time.monotonic() - t0:.1f}s: {workload}")
    spark = session_for(args)
    events = cs.read_events(spark, str(workload)).cache()
    events.count()
    rows = []
    failed = False
    with contextlib.ExitStack() as services:
        for protocol in names:
            sink_dir = out / "sinks" / protocol
            shutil.rmtree(sink_dir, ignore_errors=True)
            uri = demo_uri(sink_dir, protocol, services)
            with progress(spark, args, f"{protocol:>13} write"):
                summary = cs.write(events, uri)
            started = time.monotonic()
            with progress(spark, args, f"{protocol:>13} check"):
                back = cs.read(spark, uri, topics="*")
                result = compare(events, back, uri)
            check_seconds = time.monotonic() - started
            ok = result.equal and summary.reconciles
            failed |= not ok
            rows.append((protocol, summary, result, check_seconds, ok))
    print()
    kept = f"file sinks under {out / 'sinks'}" if args.out else "file sinks removed (--out DIR keeps them)"
    print(f"{n} events, Spark {args.master}, {kept}")
    print(
        "verified: every copy each protocol should hold was read back, as the protocol carries it"
        " (DDL and resolved events count once per partition they are broadcast to; a key-changing"
        " update counts as a delete and an insert)"
    )
    print(
        f"{'protocol':<14} {'messages':>9} {'bytes':>12} {'B/event':>8} {'write s':>8} {'events/s':>9} "
        f"{'read+check s':>12}  verified"
    )
    for protocol, s, result, check_seconds, ok in rows:
        verdict = f"equal ({result.actual} copies)" if ok else f"MISMATCH {result}"
        print(
            f"{protocol:<14} {s.messages:>9} {s.bytes:>12} {s.bytes / max(1, s.events_in):>8.0f} {s.seconds:>8.1f} "
            f"{s.events_per_second:>9,.0f} {check_seconds:>12.1f}  {verdict}"
        )
    return 1 if failed else 0
