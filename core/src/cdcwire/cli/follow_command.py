"""``cdcwire follow SOURCE_URI``: ``kcat -C`` for change events.

Prints each event as a line of event JSON (what ``cdcwire encode`` reads) as its message is
written, until Ctrl-C (SIGINT) or SIGTERM, ``--count``, ``--until`` or (``-e``) the end of every
partition, then a summary on stderr. The reading is :func:`cdcwire.api.following.follow`; this module is flags and output.
"""

from __future__ import annotations

import argparse
import signal
import sys

from ..model.event_json import to_json
from ..api.following import FollowError, follow
from ..model.ordered_events import Placed
from ..api.storage_following import StorageFollower
from ..transports.storage.location import is_storage_uri
from ..foundation.time_points import TIME_FORMS, TIME_FORMS_BESIDE_OFFSETS
from .raw_lines import raw_line
from .reading_flags import SOURCE_URI, add_skip_damaged, add_topics
from .uri_argument import FROM_ENV_OR_FILE, source_uri_argument

EPILOG = """\
exit status: 0 when it ended as asked (Ctrl-C/SIGINT or SIGTERM, --count, --until, -e); 2 on an error
(damaged or undecodable input names topic/partition/offset); 130 when a second Ctrl-C cut the
clean stop short. The summary on stderr gives events, messages, the last offset of each
partition and the resolved ts every partition reached.
"""


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "follow",
        help="print a source's events as event JSON lines as they are written, until Ctrl-C",
        description="Follow a source (kafka:// or file://): decode each new message and print its events as "
        "event JSON lines, continuously.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("uri", metavar=SOURCE_URI, type=source_uri_argument,
                   help="the sink URI the messages are written with" + FROM_ENV_OR_FILE)
    p.add_argument(
        "--from", dest="start", default="beginning", metavar="beginning|end|OFFSET|TIME",
        help="where each partition starts: its beginning (default), its end (only what is written from now), "
        "an offset (-N: its last N messages), or the first message at or after a TIME (kafka://, by the "
        f"messages' timestamps): {TIME_FORMS_BESIDE_OFFSETS}. Partitions and topics "
        "that appear later are read from their beginning",
    )
    p.add_argument(
        "--until", metavar="TIME",
        help=f"end once every partition's resolved ts has reached TIME ({TIME_FORMS}); events with a commit "
        "ts after it are not printed",
    )
    p.add_argument(
        "-e", "--exit-at-end", action="store_true",
        help="end once every partition has been read to its end (kcat -e), instead of waiting for more",
    )
    p.add_argument("--count", type=int, metavar="N", help="end after N printed events (lines, resolved events included)")
    add_topics(p, "other topics than the URI's: names and patterns, 'a,b' or 'tidb_app_*' ('*': every topic); "
               "topics a pattern matches later are picked up")
    p.add_argument("--partition", type=int, action="append", help="only these partitions (repeatable)")
    p.add_argument("--tables", help="only these tables' row and DDL events: 'app.*,!app.tmp_*' (TiDB table filter)")
    p.add_argument(
        "--group", metavar="ID",
        help="Kafka consumer group: start from its committed offsets (--from for partitions it has none for) and "
        "commit after each printed batch. At least once: events printed after the last commit (a crash, a kill) "
        "are printed again by the next follow of the group",
    )
    p.add_argument(
        "--ordered", action="store_true",
        help="one stream in commit-ts order across partitions, as TiCDC's own consumer gives: events are released "
        "up to the least resolved ts of all partitions (one without a resolved ts yet holds everything back), "
        "followed by a resolved event with that ts; replays and broadcast copies come out once. Needs a protocol "
        "that sends resolved events",
    )
    p.add_argument(
        "--poll-interval", type=float, default=0.5, metavar="SECONDS",
        help="how long to wait before looking again when nothing new was written (default 0.5)",
    )
    p.add_argument(
        "--placed", action="store_true",
        help="each event with the place of its message: topic, partition, offset, and the Kafka timestamp and headers"
        " (kafka://); unordered, every copy of a broadcast event as delivered; decoded events, not the message bytes",
    )
    p.add_argument("--raw", dest="placed", action="store_true", help=argparse.SUPPRESS)  # its older, misleading name
    p.add_argument(
        "--skip-undecodable", action="store_true",
        help="log an undecodable message (its place and reason) and go on, instead of stopping; counted at the end",
    )
    p.add_argument(
        "--fail-on-data-loss", choices=("true", "false"), default="true",
        help="true (default): stop with an error when a partition no longer holds the offset it is followed from "
        "(retention) or ends before it (the topic was deleted and written again: a --group's committed offsets); "
        "false: warn once and follow it on from its earliest offset",
    )
    add_skip_damaged(p, "uri")
    return p


def line_of(placed: Placed, with_place: bool) -> str:
    if not with_place:
        return to_json(placed.event)
    return raw_line(placed.event, placed.topic, placed.partition, placed.offset, placed.timestamp, placed.headers)


def starting_points(starts: dict[tuple[str, int], int], shown: int = 10) -> str:
    """``orders/0 from offset 12, orders/1 from offset 9``; past ``shown`` partitions, how many more."""
    points = [f"{t}/{p} from offset {offset}" for (t, p), offset in starts.items()]
    more = f" and {len(points) - shown} more partition(s)" if len(points) > shown else ""
    return ", ".join(points[:shown]) + more if points else "no partitions yet"


def beginning(follower: object) -> str:
    """What the first stderr line says the follow starts from: each partition's offset, or a layout's beginning."""
    if isinstance(follower, StorageFollower):
        return f"{follower.location.display()} from its beginning, in replay order"
    return starting_points(follower.starts)  # type: ignore[attr-defined]


def run(args: argparse.Namespace) -> int:
    if args.placed and is_storage_uri(args.uri):
        raise FollowError(
            "--placed: a storage-sink location has no topics, partitions or offsets to show (its events are placed by"
            " file and line); follow it without --placed"
        )
    try:
        follower = follow(
            args.uri, topics=args.topics, partitions=args.partition, tables=args.tables, start=args.start,
            until=args.until, count=args.count, group=args.group, ordered=args.ordered,
            poll_interval=args.poll_interval, skip_undecodable=args.skip_undecodable,
            broadcast_copies=args.placed and not args.ordered, fail_on_data_loss=args.fail_on_data_loss == "true",
            exit_at_end=args.exit_at_end,
        )
    except KeyboardInterrupt:  # Ctrl-C while it was still connecting: nothing was read
        print("cdcwire follow: interrupted before it started", file=sys.stderr)
        return 130
    signals = (signal.SIGINT, signal.SIGTERM)

    def on_signal(signum: int, _frame: object) -> None:
        if follower.stopped_by in ("SIGINT", "SIGTERM"):
            raise KeyboardInterrupt  # a second one: do not wait for the clean stop
        follower.stop(signal.Signals(signum).name)

    previous = {s: signal.signal(s, on_signal) for s in signals}
    print(f"cdcwire follow: following {beginning(follower)}", file=sys.stderr, flush=True)
    code, ended = 0, "stopped by an error"
    out = sys.stdout
    try:
        with follower:
            for placed in follower.placed():
                out.write(line_of(placed, args.placed))
                out.write("\n")
                out.flush()  # a line is out before the next is read, and before its offset is committed
        ended = {"count": "--count reached", "until": "--until reached", "end": "the end of every partition reached"}.get(
            follower.stopped_by or "", f"stopped by {follower.stopped_by}"
        )
    except KeyboardInterrupt:
        code, ended = 130, "interrupted"
    except BrokenPipeError:  # `cdcwire follow URI | head`: the reader has all it wanted
        ended = "the output was closed"
        raise
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        print(f"cdcwire follow: {ended}: {follower.summary()}", file=sys.stderr)
    return code
