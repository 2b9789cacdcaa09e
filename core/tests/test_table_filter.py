"""TiDB's table-filter syntax: the matcher of dispatch rules and consumer filters."""

from __future__ import annotations

import pytest

from cdcwire.dispatch.table_filter import TableFilter, TableFilterError


def test_globs_match_schema_and_table_case_insensitively():
    f = TableFilter.of("App.order_*")
    assert f.matches("app", "ORDER_items") and not f.matches("app", "users")


def test_a_star_never_crosses_the_dot():
    assert not TableFilter.of("*.t").matches("s", "x.t")
    assert TableFilter.of("*.t").matches("s", "t")


def test_the_last_matching_pattern_decides():
    f = TableFilter.of("*.*,!app.tmp_*,app.tmp_keep")
    assert f.matches("shop", "orders")
    assert not f.matches("app", "tmp_x")
    assert f.matches("app", "tmp_keep")


def test_exclusions_alone_keep_nothing():
    assert not TableFilter.of("!app.tmp_*").matches("shop", "orders")


def test_a_pattern_without_a_dot_is_refused_naming_it():
    with pytest.raises(TableFilterError, match="table pattern 'orders' must be 'schema.table'"):
        TableFilter.of("app.*, orders")
