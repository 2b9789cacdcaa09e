"""``cdcwire plugins``: what loaded, from which distribution, and what it registered; and
which installed plugins were left out, and why."""

from __future__ import annotations

import argparse

from ..sinks.installed import get_registry
from ..contract.registry import ALLOW_ENV


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    return sub.add_parser(
        "plugins", help=f"list loaded plugins and the ones left out, with why (restrict with {ALLOW_ENV}=a,b)"
    )


def run(args: argparse.Namespace) -> int:
    reg = get_registry()
    codecs = {}
    for codec, info in reg.codecs():
        codecs.setdefault(info.distribution, []).append(codec.name)
    transports = {}
    for t, info in reg.transports():
        transports.setdefault(info.distribution, []).append(t.scheme + "://")
    for info in reg.plugins:
        provided = codecs.get(info.distribution, []) + transports.get(info.distribution, [])
        print(f"{info.distribution} {info.version} ({info.name}): {', '.join(provided) or 'nothing registered'}")
    for refused in reg.refused:
        info = refused.plugin
        print(f"{info.distribution} {info.version} ({info.name}): refused: {refused.reason}")
    return 0
