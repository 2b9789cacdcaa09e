"""The flags every command that reads a source spells the same way: ``SOURCE_URI``, ``--topics``
and ``--skip-damaged``.

One spelling per idea across the commands; the older spellings (``--topic``) still work but
are left out of the help. ``--skip-damaged`` is the URI parameter ``skip-damaged=true`` as a
flag: :func:`apply_skip_damaged` (called by ``main`` once the arguments are parsed) adds it
to the command's source URI, so the command itself reads one URI and knows of no flag.
"""

from __future__ import annotations

import argparse
from urllib.parse import parse_qsl, urlsplit

from ..foundation.errors import SinkURIError
from ..foundation.params import parse_boolean

SOURCE_URI = "SOURCE_URI"
TOPICS_HELP = "other topics than the URI's: names and patterns, 'a,b' or 'tidb_app_*' ('*': every topic)"
_SKIP_DAMAGED_HELP = (
    "file://: skip damaged records (each logged with its file and byte, counted) instead of stopping at the first;"
    " the same as the URI parameter skip-damaged=true"
)


def add_topics(p: argparse.ArgumentParser, help: str = TOPICS_HELP) -> None:
    """``--topics`` (and the hidden older spelling ``--topic``), into ``args.topics``."""
    p.add_argument("--topics", dest="topics", help=help)
    p.add_argument("--topic", dest="topics", help=argparse.SUPPRESS)


def add_skip_damaged(p: argparse.ArgumentParser, source: str) -> None:
    """``--skip-damaged``, applied to the source URI held in ``args.<source>``."""
    p.add_argument("--skip-damaged", action="store_true", help=_SKIP_DAMAGED_HELP)
    p.set_defaults(_source_attribute=source)


def apply_skip_damaged(args: argparse.Namespace) -> None:
    """With ``--skip-damaged``: the command's source URI with ``skip-damaged=true``. A URI that
    says ``skip-damaged=false``, or a source that is not ``file://``, is an error saying so."""
    if not getattr(args, "skip_damaged", False):
        return
    attribute = args._source_attribute
    uri = getattr(args, attribute)
    parts = urlsplit(uri) if "://" in uri else None
    if parts is None or parts.scheme.lower() != "file":
        raise SinkURIError(
            f"--skip-damaged reads file:// sources (only their records can be damaged); {uri.split('?')[0]!r}"
            " is not one", "skip-damaged",
        )
    given = dict(parse_qsl(parts.query, keep_blank_values=True)).get("skip-damaged")
    if given is not None:
        try:
            says = parse_boolean(given)
        except ValueError:
            return  # the URI's own parsing names the bad value
        if not says:
            raise SinkURIError("--skip-damaged and the URI's skip-damaged=false disagree: drop one", "skip-damaged")
        return
    setattr(args, attribute, f"{uri}{'&' if '?' in uri else '?'}skip-damaged=true")
