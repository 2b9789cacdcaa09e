"""What each path of a TiCDC storage-sink layout names (``pkg/cloudstorage/path_key.go``)."""

from __future__ import annotations

import re

import pytest

from cdcwire.transports.storage.places import LayoutError
from cdcwire.transports.storage.paths import DataDir, DataPath, IndexPath, SchemaPath, parse_path


def test_a_data_file_with_twenty_digits_under_a_day_directory() -> None:
    named = parse_path("test/t1/437752935075545091/2024-01-02/CDC00000000000000000001.csv", "day", False)
    assert named == DataPath(DataDir(437752935075545091, "test", "t1", None, "2024-01-02"), 1, ".csv")


@pytest.mark.parametrize("separator, date", [("none", ""), ("year", "2024"), ("month", "2024-01"), ("day", "2024-01-02")])
def test_every_date_separator_names_its_directory(separator: str, date: str) -> None:
    path = "/".join(p for p in ("s", "t", "5", "60", date, "CDC000003.json") if p)
    assert parse_path(path, separator, False) == DataPath(DataDir(5, "s", "t", 60, date), 3, ".json")


def test_a_year_directory_is_not_taken_for_a_partition_when_the_separator_says_year() -> None:
    assert parse_path("s/t/5/2024/CDC000001.csv", "year", False).directory.partition is None
    assert parse_path("s/t/5/2024/CDC000001.csv", "none", False).directory.partition == 2024


def test_an_index_file_names_its_data_directory() -> None:
    assert parse_path("s/t/5/77/meta/CDC.index", "none", False) == IndexPath(DataDir(5, "s", "t", 77))


def test_table_across_nodes_files_carry_their_dispatcher() -> None:
    assert parse_path("s/t/5/CDC_abc-1_000002.csv", "none", False) == DataPath(DataDir(5, "s", "t"), 2, ".csv", "abc-1")
    assert parse_path("s/t/5/meta/CDC_abc-1.index", "none", False) == IndexPath(DataDir(5, "s", "t"), "abc-1")


def test_schema_files_of_a_table_and_of_a_database() -> None:
    assert parse_path("s/t/meta/schema_5_0123456789.json", "day", False) == SchemaPath("s", "t", 5, 123456789)
    assert parse_path("s/meta/schema_4_0000000001.json", "day", False) == SchemaPath("s", "", 4, 1)


def test_table_id_paths() -> None:
    assert parse_path("42/7/2024-01-02/CDC000001.csv", "day", True) == DataPath(DataDir(7, "", "", None, "2024-01-02", 42), 1, ".csv")
    assert parse_path("42/meta/schema_7_0000000001.json", "day", True) == SchemaPath("", "", 7, 1, 42)


@pytest.mark.parametrize("path", ["metadata", "s/t/5/CDC000001.csv.tmp", "s/t/x/CDC000001.csv", "s/t/5/notes.txt",
                                  "s/t/5/2024-01-02/CDC1.csv"])
def test_anything_else_is_left_alone(path: str) -> None:
    assert parse_path(path, "none", False) is None


@pytest.mark.parametrize("path, problem", [
    (f"s/t/{1 << 64}/CDC000001.csv", f"table version {1 << 64} is past {(1 << 64) - 1}"),
    (f"s/t/5/CDC{1 << 64}.csv", f"file index {1 << 64} is past {(1 << 64) - 1}"),
    (f"s/t/5/{1 << 63}/meta/CDC.index", f"partition {1 << 63} is past {(1 << 63) - 1}"),
    (f"{1 << 63}/meta/schema_7_0000000001.json", f"table id {1 << 63} is past {(1 << 63) - 1}"),
], ids=["version", "file index", "partition", "table id"])
def test_a_number_no_event_can_carry_is_refused_naming_the_path(path: str, problem: str) -> None:
    with pytest.raises(LayoutError, match=rf"^{re.escape(path)}: {problem}: not a path TiCDC writes$"):
        parse_path(path, "none", True)
