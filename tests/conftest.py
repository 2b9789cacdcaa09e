"""Cross-package test setup. Real components (a Kafka-protocol broker, a
Schema Registry, Spark) are started by the fixture modules under
``tests/fixtures/``; each is listed here once it exists."""

from __future__ import annotations

import os

_HERE = os.path.dirname(__file__)
pytest_plugins = [
    f"fixtures.{name}"
    for name in ("kafka_broker", "schema_registry", "spark_session", "s3_server")
    if os.path.exists(os.path.join(_HERE, "fixtures", f"{name}.py"))
]
