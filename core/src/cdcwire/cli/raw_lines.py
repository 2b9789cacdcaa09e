"""The ``--placed`` line of ``inspect`` and ``follow`` (``--raw`` until it was named for what it
is: decoded events, not message bytes): an event with the place of its message, and the
message's Kafka timestamp and headers where the transport keeps them.

    {"topic": "orders", "partition": 0, "offset": 7, "timestamp": 1714564800000,
     "headers": [["trace", "abc"]], "type": "row", ...}

``timestamp`` (ms since the epoch) and ``headers`` (``[name, value]`` pairs in order, values
as UTF-8 text, undecodable bytes backslash-escaped, null for a header without a value) are
left out for ``file://``, whose records carry neither.
"""

from __future__ import annotations

import json
from typing import Optional

from ..model.event_json import event_to_dict
from ..model.events import Event


def raw_line(
    event: Event, topic: Optional[str], partition: Optional[int], offset: Optional[int],
    timestamp: Optional[int] = None, headers: Optional[tuple[tuple[str, Optional[bytes]], ...]] = None,
) -> str:
    d: dict = {"topic": topic, "partition": partition, "offset": offset}
    if timestamp is not None:
        d["timestamp"] = timestamp
    if headers is not None:
        d["headers"] = [[name, None if value is None else value.decode("utf-8", "backslashreplace")]
                        for name, value in headers]
    d.update(event_to_dict(event))
    return json.dumps(d, ensure_ascii=False)
