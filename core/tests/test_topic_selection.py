"""Which topics a read takes: names, patterns, or the URI's topic."""

from __future__ import annotations

import pytest

from cdcwire import CdcwireError
from cdcwire.uris.topic_selection import select_topics

HELD = ["orders", "tidb_app_files", "tidb_app_users", "tidb_shop_orders"]


def held() -> list[str]:
    return list(HELD)


def test_no_selection_reads_the_uris_topic():
    assert select_topics(None, "orders", held) == ["orders"]
    assert select_topics(" , ", "orders", held) == ["orders"]


def test_names_are_taken_as_given_without_listing_the_source():
    def unlisted() -> list[str]:
        raise AssertionError("a list of names needs no listing")

    assert select_topics("a, b", "orders", unlisted) == ["a", "b"]


def test_a_pattern_takes_every_matching_topic_in_order():
    assert select_topics("tidb_app_*", "orders", held) == ["tidb_app_files", "tidb_app_users"]


def test_star_alone_is_every_topic_the_source_holds():
    assert select_topics("*", "orders", held) == HELD


def test_names_and_patterns_mix_without_repeats():
    assert select_topics("tidb_app_users,tidb_*_users,orders", "x", held) == ["tidb_app_users", "orders"]


def test_a_pattern_matching_nothing_names_what_the_source_holds():
    with pytest.raises(CdcwireError, match=r"no topic matches 'tidb_ap_\*'; the source holds orders, tidb_app_files"):
        select_topics("tidb_ap_*", "orders", held)


def test_a_list_of_topics_is_taken_as_a_selection_too():
    assert select_topics(["orders", "tidb_shop_*"], "x", held) == ["orders", "tidb_shop_orders"]
