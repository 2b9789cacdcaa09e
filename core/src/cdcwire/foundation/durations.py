"""Go-style durations (``500ms``, ``10s``, ``1m30s``), as TiCDC's sink URIs write timeouts.

A value rule of parameters, kept apart from any transport: the kafka transport declares
``dial-timeout`` with it and its client settings read it back, and neither imports the other.
"""

from __future__ import annotations

import re

from .params import shown_value

#: One number-and-unit part of a Go duration (time.ParseDuration): ASCII digits, ``.5`` and ``5.`` allowed.
_DURATION_PART = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)", re.ASCII)
_DURATION_UNIT_SECONDS = {
    "ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0,
}
_EXAMPLES = "such as 500ms, 10s or 1m30s"


def parse_duration(text: str) -> float:
    """Seconds of a Go-style duration (``500ms``, ``10s``, ``1m30s``), as TiCDC URIs write them.

    The grammar is Go's ``time.ParseDuration`` (units ns, us, ms, s, m, h), without a sign:
    a timeout is positive.
    """
    pos, total = 0, 0.0
    while pos < len(text):
        m = _DURATION_PART.match(text, pos)
        if m is None:
            raise ValueError(f"{shown_value(text)} is not a duration {_EXAMPLES}")
        total += float(m.group(1)) * _DURATION_UNIT_SECONDS[m.group(2)]
        pos = m.end()
    if pos == 0 or total <= 0:
        raise ValueError(f"{shown_value(text)} is not a positive duration {_EXAMPLES}")
    return total
