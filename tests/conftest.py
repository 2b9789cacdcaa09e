"""Cross-package test setup. Real components (a Kafka-protocol broker, a
Schema Registry, Spark) are started by the fixture modules under
``tests/fixtures/``; each is listed here once it exists.

``CDCWIRE_SUITE_PART=spark|rest`` keeps one half of the suite: the tests that use the shared
Spark session (the ``spark`` fixture, directly or through another fixture) or the local cluster, or all the others
(including those that start Spark in a process of their own). ``scripts/test`` runs the two
halves side by side: one Spark session still serves the run, and the tests that wait on
brokers, subprocesses and installs use the time its jobs leave."""

from __future__ import annotations

import os

_HERE = os.path.dirname(__file__)
pytest_plugins = [
    f"fixtures.{name}"
    for name in ("kafka_broker", "schema_registry", "spark_session", "s3_server", "long_tests")
    if os.path.exists(os.path.join(_HERE, "fixtures", f"{name}.py"))
]

PARTS = ("spark", "rest")


#: Fixtures whose tests run in the Spark half: the shared session, and the local cluster (one
#: module-scoped cluster of three JVMs; its tests must not start it once in each half).
SPARK_HALF_FIXTURES = ("spark", "cluster")


def uses_spark(item) -> bool:
    return any(name in getattr(item, "fixturenames", ()) for name in SPARK_HALF_FIXTURES)


def pytest_collection_modifyitems(config, items) -> None:
    part = os.environ.get("CDCWIRE_SUITE_PART")
    if not part:
        return
    if part not in PARTS:
        raise ValueError(f"CDCWIRE_SUITE_PART={part!r}: expected one of {', '.join(PARTS)}, or unset for every test")
    keep = [item for item in items if uses_spark(item) == (part == "spark")]
    config.hook.pytest_deselected(items=[item for item in items if uses_spark(item) != (part == "spark")])
    items[:] = keep
