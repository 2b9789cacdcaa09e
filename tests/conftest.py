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


def pytest_collection_modifyitems(config, items) -> None:
    """Every test on the shared Spark session runs in one pytest-xdist group, so a parallel run
    (``scripts/test`` gives ``-n 2 --dist loadgroup``) starts one session, in one worker, while
    the other worker takes the tests without Spark. Without xdist the mark does nothing."""
    import pytest

    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("spark"))
