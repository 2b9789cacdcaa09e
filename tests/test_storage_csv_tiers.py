"""The two tiers of reading a storage-sink csv layout on the executors give the same event rows:
the fast one (``pyarrow.csv``, typed columns, the event batch built columnar) and the reference
one (``cdcwire.read_storage``'s reading, per row). Each test reads every part of a layout as a
``cs.read`` task does (:func:`read_part`) with both tiers, and compares the batches (events,
file and line); a damaged file gives the same error from both, as the fast tier hands what it
refuses to the reference tier."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

import cdcwire
from cdcwire.spark.reader.storage_csv_batches import csv_file_rows
from cdcwire.spark.reader.layout_parts import LayoutPart, read_part
from cdcwire.spark.rows.schema import ARROW_READ_EVENT_SCHEMA
from cdcwire.transports.storage.layout import DirItem, snapshot
from cdcwire.transports.storage.location import StorageLocation
from cdcwire.transports.storage.places import LayoutError
from cdcwire.transports.storage.replay import csv_options, item_specs
from cdcwire.transports.storage.schema_files import TableCol
from cdcwire.workload import Workload
from storage_layout import Layout
from test_storage_read import CSV, ID, NAME, reference_layout

TIERS = ("fast", "reference")
FLAT = {"include-commit-ts": "true", "date-separator": "none"}  # data files right under the version


def read_with(uri: str, tier: str, after: int = -1) -> pa.Table:
    """Every part of the layout read as the ``cs.read`` tasks read them, in one table."""
    parts = snapshot(StorageLocation.parse(uri)).by_table()
    batches = [b for i, part in enumerate(parts) for b in read_part(uri, LayoutPart(i, part, after), tier)]
    return pa.Table.from_batches(batches, ARROW_READ_EVENT_SCHEMA).combine_chunks()


def both_tiers(uri: str, after: int = -1) -> pa.Table:
    fast, reference = (read_with(uri, tier, after) for tier in TIERS)
    assert fast.equals(reference), _first_difference(fast, reference)
    return fast


def _first_difference(fast: pa.Table, reference: pa.Table) -> str:
    a, b = fast.to_pylist(), reference.to_pylist()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"row {i}: fast {x} != reference {y}"
    return f"{len(a)} rows (fast) != {len(b)} rows (reference)"


def files_taken(uri: str) -> list[bool]:
    """Per data file of the layout: whether the fast tier takes it."""
    location = StorageLocation.parse(uri)
    taken = []
    for item in snapshot(location).items:
        if isinstance(item, DirItem):
            specs = item_specs(location, item)
            for path in item.files:
                rows = csv_file_rows(location.storage.get(path), path, specs, csv_options(location),
                                     item.directory.version, item.directory.partition)
                taken.append(rows is not None)
    return taken


def errors_of_both(uri: str) -> list[str]:
    messages = []
    for tier in TIERS:
        with pytest.raises(LayoutError) as info:
            read_with(uri, tier)
        messages.append(str(info.value))
    return messages


DIALECTS = {  # csv options of the workload's layout, and whether the fast tier takes its files
    "commit-ts-old-values": ({"include-commit-ts": "true", "output-old-value": "true"}, True),
    "no-commit-ts": ({"date-separator": "month"}, True),
    "header": ({"include-commit-ts": "true", "output-field-header": "true"}, True),
    "pipe-null-hex-lf": ({"include-commit-ts": "true", "delimiter": "|", "null": "NULL", "terminator": "%0A",
                          "binary-encoding-method": "hex"}, True),
    "quote-less": ({"include-commit-ts": "true", "quote": "", "output-old-value": "true"}, None),
    "three-character-delimiter": ({"include-commit-ts": "true", "delimiter": "|*|"}, False),
}


@pytest.mark.parametrize("params, taken", DIALECTS.values(), ids=DIALECTS.keys())
def test_both_tiers_read_a_workload_of_every_column_kind_alike(tmp_path: Path, params: dict, taken) -> None:
    uri = Layout(tmp_path).uri(**params)
    cdcwire.write_storage(uri, Workload(150, seed=11))
    assert both_tiers(uri).num_rows > 100
    if taken is not None:
        assert set(files_taken(uri)) == {taken}


def test_a_quoted_null_text_is_text_and_an_unquoted_one_null(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", 100, [ID, NAME])
    layout.data("app/users/100", 1, ['"I","users","app",110,1,"\\N"', '"I","users","app",120,2,\\N'])
    layout.checkpoint(200)
    rows = both_tiers(layout.uri(**FLAT)).to_pylist()
    assert [r["columns"][1]["value"]["string"] for r in rows if r["kind"] == "insert"] == ["\\N", None]
    assert files_taken(layout.uri(**FLAT)) == [True]


def test_values_holding_quotes_and_delimiters_read_alike(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", 100, [ID, NAME])
    layout.data("app/users/100", 1, ['"I","users","app",110,1,"say ""hi"", then go"', '"I","users","app",120,2,""""',
                                     '"I","users","app",130,3,""', '"I","users","app",140,4,plain'])
    layout.checkpoint(200)
    uri = layout.uri(**FLAT)
    rows = both_tiers(uri).to_pylist()
    assert [r["columns"][1]["value"]["string"] for r in rows if r["kind"] == "insert"] == [
        'say "hi", then go', '"', "", "plain"]
    assert files_taken(uri) == [True]


def test_updates_and_deletes_read_alike_with_and_without_old_values(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", 100, [ID, NAME])
    layout.data("app/users/100", 1, ['"I","users","app",110,false,1,"ann"', '"D","users","app",120,true,1,"ann"',
                                     '"I","users","app",120,true,1,"anne"', '"U","users","app",130,false,1,"an"',
                                     '"D","users","app",140,false,1,"an"'])
    layout.checkpoint(200)
    uri = layout.uri(**FLAT, **{"output-old-value": "true"})
    rows = both_tiers(uri).to_pylist()
    assert [(r["kind"], r["offset"], len(r["pre_columns"] or ())) for r in rows if r["kind"] != "resolved"][-4:] == [
        ("insert", 1, 0), ("update", 3, 2), ("update", 4, 1), ("delete", 5, 2)]
    assert files_taken(uri) == [True]


def test_quote_less_values_with_escapes_are_read_by_the_reference_tier(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", 100, [ID, NAME])
    layout.data("app/users/100", 1, ["I,users,app,110,1,a\\,b\\\\c\\nd", "I,users,app,120,2,plain"])
    layout.checkpoint(200)
    uri = layout.uri(**FLAT, quote="")
    rows = both_tiers(uri).to_pylist()
    assert [r["columns"][1]["value"]["string"] for r in rows if r["kind"] == "insert"] == ["a,b\\c\nd", "plain"]
    assert files_taken(uri) == [False]


BLOB = TableCol("b", "VARBINARY", "20")


@pytest.mark.parametrize("encoding, texts", [
    ("base64", ['""', '"YQ=="', '"YWI="', '"YWJj"', "\\N", '"/+8A"']),
    ("hex", ['""', '"61"', '"6162"', '"FF00"', "\\N", '"0aBc"']),
])
def test_binary_values_read_alike_in_each_encoding(tmp_path: Path, encoding: str, texts: list[str]) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "blobs", 100, [ID, BLOB])
    layout.data("app/blobs/100", 1, [f'"I","blobs","app",{110 + i},{i},{t}' for i, t in enumerate(texts)])
    layout.checkpoint(200)
    uri = layout.uri(**FLAT, **{"binary-encoding-method": encoding})
    rows = both_tiers(uri).to_pylist()
    assert [r["columns"][1]["value"]["binary"] for r in rows if r["kind"] == "insert"][:4] == [b"", b"a", b"ab", (
        b"abc" if encoding == "base64" else b"\xff\x00")]
    assert files_taken(uri) == [True]


OFF_FORM = [("base64", '"YQ="'), ("base64", '"Y=Q="'), ("hex", '"6"'), ("hex", '"61 62"')]


@pytest.mark.parametrize("encoding, text", OFF_FORM)
def test_a_binary_text_off_the_plain_form_gives_the_reference_tiers_answer(tmp_path: Path, encoding: str,
                                                                           text: str) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "blobs", 100, [ID, BLOB])
    layout.data("app/blobs/100", 1, ['"I","blobs","app",110,1,""', f'"I","blobs","app",120,2,{text}'])
    layout.checkpoint(200)
    uri = layout.uri(**FLAT, **{"binary-encoding-method": encoding})
    if text == '"61 62"':  # bytes.fromhex takes spaces between the bytes
        assert [r["columns"][1]["value"]["binary"] for r in both_tiers(uri).to_pylist() if r["kind"] == "insert"] == [
            b"", b"ab"]
    else:
        fast, reference = errors_of_both(uri)
        expected = f"CDC000001.csv:2: column 'b' (varbinary(20)): {text[1:-1]!r} is not {encoding}"
        assert fast == reference and expected in reference


def test_a_value_with_a_line_break_is_read_by_the_reference_tier_with_its_lines(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", 100, [ID, NAME])
    layout.data("app/users/100", 1, ['"I","users","app",110,1,"two\r\nlines"', '"I","users","app",120,2,"last"'])
    layout.checkpoint(200)
    uri = layout.uri(**FLAT)
    rows = both_tiers(uri).to_pylist()
    assert [r["offset"] for r in rows if r["kind"] == "insert"] == [1, 3]
    assert files_taken(uri) == [False]


def test_the_reference_layout_replays_alike(tmp_path: Path) -> None:
    uri = reference_layout(tmp_path).uri(**CSV)
    rows = both_tiers(uri).to_pylist()
    assert sorted((r["topic"][-13:], r["offset"]) for r in rows if r["kind"] == "insert") == [
        ("CDC000001.csv", 1), ("CDC000001.csv", 1), ("CDC000001.csv", 1), ("CDC000001.csv", 1),
        ("CDC000001.csv", 2), ("CDC000002.csv", 2)]


def test_equal_rows_at_one_commit_ts_are_replays_in_a_file_and_across_files_of_either_tier(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "log", 100, [TableCol("n", "INT", "11")])
    row = '"I","log","app",{},{}'
    layout.data("app/log/100", 1, [row.format(110, 1), row.format(110, 1), row.format(110, 2), row.format(120, 1)])
    layout.data("app/log/100", 2, [row.format(120, 1), row.format(120, 3), row.format(115, 4), '"I","log","app",120,"5\n"'])
    layout.data("app/log/100", 3, [row.format(120, 5), row.format(120, 3), row.format(130, 1), row.format(130, 1)])
    layout.checkpoint(200)
    uri = layout.uri(**FLAT)
    assert files_taken(uri) == [True, False, True]
    rows = both_tiers(uri).to_pylist()
    assert [(r["topic"][-13:], r["offset"]) for r in rows if r["kind"] == "insert"] == [
        ("CDC000001.csv", 1), ("CDC000001.csv", 3), ("CDC000001.csv", 4), ("CDC000002.csv", 2),
        ("CDC000002.csv", 4), ("CDC000003.csv", 3)]  # "5\n" (its line break: the reference tier's) reads as 5


def test_a_read_after_an_earlier_checkpoint_gives_the_same_rows_from_both_tiers(tmp_path: Path) -> None:
    uri = reference_layout(tmp_path).uri(**CSV)
    rows = both_tiers(uri, after=200).to_pylist()
    assert sorted(int(r["commit_ts"]) for r in rows if r["kind"] == "insert") == [210, 230]


DAMAGES = {
    "text after a closing quote": ('"ann"', '"an"n'),
    "a field missing": (',"ann"', ""),
    "a quote never closed": ('"ann"', '"ann'),
    "an integer that is not one": (",1,", ",one,"),
    "an integer past INT": (",1,", ",99999999999,"),
    "a byte that is not UTF-8": ("ann", "a\xffn"),
    "an unknown operation": ('"I"', '"X"'),
    "a byte order mark": ('"I","users","app",110', '\ufeff"I","users","app",110'),
    "an update's D row alone": ('"I","users","app",120,false', '"D","users","app",120,true'),
}


QUOTING = {"text after a closing quote", "a quote never closed"}  # damages of quoted fields only
CASES = [pytest.param(damage, '"', id=f"{name}, quoted") for name, damage in DAMAGES.items()] + [
    pytest.param(damage, "", id=f"{name}, quote-less")
    for name, damage in DAMAGES.items() if name not in QUOTING]


@pytest.mark.parametrize("damage, quote", CASES)
def test_a_damaged_file_gives_the_same_error_from_both_tiers(tmp_path: Path, damage: tuple[str, str],
                                                            quote: str) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", 100, [ID, NAME])
    lines = ['"I","users","app",110,false,2,"bob"', '"I","users","app",120,false,1,"ann"']
    old, new = damage
    if not quote:
        old, new = old.replace('"', ""), new.replace('"', "")
        lines = [line.replace('"', "") for line in lines]
    path = layout.data("app/users/100", 1, lines)
    target = tmp_path / path
    damaged = target.read_bytes().decode().rsplit("\r\n", 2)
    line = 0 if "\ufeff" in new else 1
    damaged[line] = damaged[line].replace(old, new, 1)
    target.write_bytes("\r\n".join(damaged).encode("latin-1" if "\xff" in new else "utf-8"))
    layout.checkpoint(200)
    fast, reference = errors_of_both(layout.uri(**FLAT, **{"output-old-value": "true", "quote": quote}))
    assert fast == reference and reference.startswith(f"{path}:{line + 1}: ")


def test_a_file_cut_inside_its_last_field_gives_the_same_error_from_both_tiers(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    layout.schema("app", "users", 100, [ID, NAME])
    path = layout.data("app/users/100", 1, ['"I","users","app",110,1,"ann"', '"I","users","app",120,2,19000057'])
    (tmp_path / path).write_bytes((tmp_path / path).read_bytes()[:-5])  # "057\r\n": the name would read "19000"
    layout.checkpoint(200)
    fast, reference = errors_of_both(layout.uri(**FLAT))
    assert fast == reference and reference.startswith(f"{path}:2: the last record does not end with the terminator")
