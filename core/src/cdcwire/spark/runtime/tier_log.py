"""Which tier runs a Spark stage, said once: the Java tier where it serves, the Python tier for
the rest (:mod:`cdcwire.spark.writer.jvm_encoding`, :mod:`cdcwire.spark.reader.jvm_decoding`)."""

from __future__ import annotations

import logging

log = logging.getLogger("cdcwire.spark")
_SAID: set[str] = set()


def say_once(does: str, tier: str, why: str) -> None:
    """Log, once per process and reason, which tier ``does`` ("encodes", "decodes") the work."""
    line = f"cdcwire.spark: the {tier} tier {does} ({why})"
    if line not in _SAID:
        _SAID.add(line)
        log.info(line)
