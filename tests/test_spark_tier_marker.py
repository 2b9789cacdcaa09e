"""The ``both_tiers`` marker (tests/fixtures/spark_tiers.py): a marked Spark test runs once on
each tier, and each run is on the tier its id names."""

from __future__ import annotations

import pytest

from cdcwire.sinks.sink import open_sink
from cdcwire.spark.reader.jvm_decoding import decoding_tier
from cdcwire.spark.writer.jvm_encoding import ENCODING_SETTING
from cdcwire.spark.writer.jvm_routing import TIER_SETTING


@pytest.mark.both_tiers
def test_a_marked_run_decodes_on_the_tier_its_id_names(spark, spark_tier, tmp_path):
    sink = open_sink(f"file://{tmp_path}/t?protocol=canal-json")
    assert decoding_tier(sink, spark)[0] == spark_tier


@pytest.mark.both_tiers
def test_a_marked_run_routes_and_encodes_on_the_tier_its_id_names(spark, spark_tier):
    expected = "python" if spark_tier == "python" else "auto"
    assert spark.conf.get(TIER_SETTING, "auto") == expected
    assert spark.conf.get(ENCODING_SETTING, "auto") == expected


def test_an_unmarked_test_runs_on_the_default_tiers(spark):
    assert spark.conf.get("spark.cdcwire.decoding", "auto") == "auto"
