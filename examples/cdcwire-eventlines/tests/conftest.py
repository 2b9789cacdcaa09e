"""The example's tests run where ``cdcwire-eventlines`` is installed (its entry point is how Spark's
Python workers find the codec, and its Java sources are compiled into the session's jar), on one
small local Spark session of their own."""

from __future__ import annotations

from typing import Iterator

import pytest


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    from cdcwire.spark import spark_session

    session = spark_session("local[1]", app_name="cdcwire-eventlines-tests", shuffle_partitions=1,
                            **{"spark.python.authenticate.socketTimeout": "120s"})
    try:
        yield session
    finally:
        session.stop()
