"""``consumer-settings``: librdkafka consumer settings a ``kafka://`` reader adds to its own.

Why: tuning a read (``fetch.max.bytes``, ``max.partition.fetch.bytes``, ``fetch.wait.max.ms``,
``isolation.level``) is librdkafka's business, and Spark's Kafka source passes its ``kafka.*``
options through the same way; the Spark ``cdcwire`` source carries its ``kafka.*`` options here.
Settings cdcwire decides itself (where to connect, how to log in, that a reader commits nothing
and fails on a missing offset) are refused, naming the URI parameter to use instead: the
secrets stay in the parameters whose values are masked.
"""

from __future__ import annotations

import json
from typing import Optional

#: Settings cdcwire sets from the URI or needs as they are, and where to set them instead.
RESERVED = {
    "bootstrap.servers": "the URI's host:port list",
    "metadata.broker.list": "the URI's host:port list",
    "client.id": "the kafka-client-id parameter",
    "group.id": "cdcwire follow --group (a reader commits nothing)",
    "enable.auto.commit": "cdcwire follow --group (a reader commits nothing)",
    "enable.auto.offset.store": "cdcwire follow --group (a reader commits nothing)",
    "auto.offset.reset": "startingOffsets / failOnDataLoss (a missing offset is data loss, never skipped silently)",
    "enable.partition.eof": "nothing: a bounded read needs it",
    "allow.auto.create.topics": "auto-create-topic (a read never creates a topic)",
}
#: Prefixes of settings that log in or encrypt: the URI's TLS and SASL parameters, whose secrets are masked.
RESERVED_PREFIXES = ("security.", "sasl.", "ssl.")


def consumer_settings(text: Optional[str]) -> dict[str, str]:
    """The settings of a ``consumer-settings`` value (a JSON object of names to values); {} for none."""
    if not text:
        return {}
    problem = consumer_settings_problem(text)
    if problem:
        raise ValueError(problem)
    return {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in json.loads(text).items()}


def consumer_settings_problem(text: str) -> Optional[str]:
    """Why ``text`` is not a ``consumer-settings`` value, or None."""
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        return 'must be a JSON object of librdkafka consumer settings, such as {"fetch.max.bytes": "1048576"}'
    for name, value in parsed.items():
        if name in RESERVED:
            return f"{name!r} is cdcwire's to set: use {RESERVED[name]}"
        if name.startswith(RESERVED_PREFIXES):
            return f"{name!r} is cdcwire's to set: use the URI's TLS and SASL parameters (enable-tls, ca, sasl-*)"
        if not isinstance(value, (str, int, float, bool)):
            return f"{name!r}: {value!r} is not a setting value (a text, number or boolean)"
    return None
