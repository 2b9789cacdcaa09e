"""Shared builders of the debezium tests: the goldens and encoders at TiCDC's test settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cdcwire_debezium.encoder import DebeziumEncoder
from cdcwire_debezium.options import DebeziumOptions

GOLDENS = Path(__file__).parent / "goldens"

#: TiCDC's codec tests: nowFunc = time.Unix(1701326309, 0).
NOW_MS = 1_701_326_309_000


def golden(name: str) -> Any:
    return json.loads((GOLDENS / name).read_text())


def encoder(**options: Any) -> DebeziumEncoder:
    """An encoder at TiCDC's codec-test settings (cluster ``test_cluster``, a stopped clock)."""
    options.setdefault("cluster_id", "test_cluster")
    return DebeziumEncoder(DebeziumOptions(**options), clock=lambda: NOW_MS)


def encoded(enc: DebeziumEncoder, event: Any) -> tuple[Any, Any]:
    """Key and value of one event, parsed."""
    message = enc.encode_event(event)
    assert message is not None
    return json.loads(message[0]), json.loads(message[1])
