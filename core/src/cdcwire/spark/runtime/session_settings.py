"""Spark SQL settings changed for one step and put back after it, as the user had them.

A library that runs on the user's session must not leave its own tuning behind: each
setting is restored (or unset, if the user never set it) when the step ends, also on error.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from pyspark.sql import SparkSession


@contextmanager
def session_settings(spark: SparkSession, settings: dict[str, str]) -> Iterator[None]:
    conf = spark.conf
    before = {name: conf.get(name, None) for name in settings}
    for name, value in settings.items():
        conf.set(name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                conf.unset(name)
            else:
                conf.set(name, value)
