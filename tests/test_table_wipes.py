"""Which rows a TRUNCATE / DROP removes when renames move tables in the same run (no Spark)."""

from cdcwire.spark.tables.table_renames import Rename
from cdcwire.spark.tables.table_wipes import Wipe, first_name, wiped_spans


def test_a_truncate_after_a_rename_wipes_the_rows_the_table_had_under_its_old_name() -> None:
    renames = [Rename(20, "shop.a", "shop.b")]
    assert wiped_spans(Wipe(30, "shop.b", "truncate"), renames) == [("shop.b", 20, 30), ("shop.a", None, 20)]


def test_a_drop_of_a_name_renamed_away_before_it_wipes_only_the_table_created_after() -> None:
    renames = [Rename(20, "shop.a", "shop.b")]
    wipe = Wipe(30, "shop.a", "drop")
    assert wiped_spans(wipe, renames) == [("shop.a", 20, 30)] and first_name(wipe, renames) is None


def test_a_truncate_after_two_tables_swapped_names_wipes_the_other_tables_earlier_rows() -> None:
    swap = [Rename(20, "shop.a", "shop.tmp"), Rename(20, "shop.b", "shop.a"), Rename(20, "shop.tmp", "shop.b")]
    assert first_name(Wipe(30, "shop.a", "truncate"), swap) == "shop.b"
