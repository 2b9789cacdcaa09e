"""What every tier choice shares (routing, encoding, decoding: the JVM where it serves, Python for
the rest): its session setting, read one way, and the line that says once which tier runs."""

from __future__ import annotations

import logging

from ...foundation.errors import CdcwireError

log = logging.getLogger("cdcwire.spark")
_SAID: set[str] = set()


def tier_setting(spark, name: str, work: str) -> str:
    """The session setting ``name``: ``auto`` (the default: the JVM tier where it serves) or
    ``python``; anything else is refused naming the choices (``work``: "routing", "encoding"...)."""
    setting = (spark.conf.get(name, "auto") or "auto").strip().lower()
    if setting not in ("auto", "python"):
        raise CdcwireError(f"{name}={setting!r} is not a{'n' if work[0] in 'aeiou' else ''} {work} tier; use 'auto' or 'python'")
    return setting


def say_once(does: str, tier: str, why: str) -> None:
    """Log, once per process and reason, which tier ``does`` ("encodes", "decodes") the work."""
    line = f"cdcwire.spark: the {tier} tier {does} ({why})"
    if line not in _SAID:
        _SAID.add(line)
        log.info(line)
