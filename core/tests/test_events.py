from __future__ import annotations

import dataclasses

import pytest

from cdcwire import Column, ColumnFlag, ColumnType, ResolvedEvent, RowChangedEvent
from cdcwire.model.events import build_column

PK = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
ID = (Column("id", ColumnType.INT, PK, 1), Column("v", ColumnType.VARCHAR, ColumnFlag.NULLABLE, None))


def test_insert_update_delete_are_told_apart_by_the_images_present():
    assert RowChangedEvent(1, "s", "t", ID).kind == "insert"
    assert RowChangedEvent(1, "s", "t", ID, ID).kind == "update"
    assert RowChangedEvent(1, "s", "t", None, ID).kind == "delete"


def test_a_row_event_without_any_image_is_rejected():
    with pytest.raises(ValueError, match="neither columns nor pre_columns"):
        RowChangedEvent(1, "s", "t")


def test_handle_key_columns_come_from_the_new_image_or_the_old_one_for_a_delete():
    assert RowChangedEvent(1, "s", "t", ID).handle_key_columns() == ID[:1]
    assert RowChangedEvent(1, "s", "t", None, ID).handle_key_columns() == ID[:1]


def test_events_are_immutable_and_slotted():
    e = ResolvedEvent(5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.ts = 6  # type: ignore[misc]
    assert not hasattr(e, "__dict__")
    assert e.commit_ts == 5


def test_column_flag_helpers():
    c = Column("b", ColumnType.BLOB, ColumnFlag.BINARY | ColumnFlag.NULLABLE, b"")
    assert c.is_binary and c.is_nullable and c.holds_bytes and not c.is_unsigned
    assert not Column("t", ColumnType.BLOB, ColumnFlag(0), "").holds_bytes
    assert not Column("d", ColumnType.DATE, ColumnFlag.BINARY, "2020-01-01").holds_bytes


def test_build_column_gives_the_same_frozen_column_as_the_constructor():
    built = build_column("price", ColumnType.DECIMAL, ColumnFlag.NULLABLE, "1.50", "decimal(10,2)")
    made = Column("price", ColumnType.DECIMAL, ColumnFlag.NULLABLE, "1.50", "decimal(10,2)")
    assert type(built) is Column
    assert built == made and hash(built) == hash(made) and repr(built) == repr(made)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.value = "2.00"  # type: ignore[misc]


def test_build_column_fills_every_field_of_column():
    names = [f.name for f in dataclasses.fields(Column)]
    built = build_column(*names)  # type: ignore[arg-type]
    assert [getattr(built, n) for n in names] == names


def test_flag_tests_give_ints_and_unions_give_flags():
    flags = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
    assert type(flags) is ColumnFlag and flags == 10
    assert flags & ColumnFlag.HANDLE_KEY == 2 and not flags & ColumnFlag.BINARY
    assert list(flags) == [ColumnFlag.HANDLE_KEY, ColumnFlag.PRIMARY_KEY]


def test_build_row_event_gives_the_same_frozen_event_as_the_constructor():
    from cdcwire.model.events import build_row_event

    built = build_row_event(7, "s", "t", ID, None, 42)
    made = RowChangedEvent(7, "s", "t", ID, None, 42)
    assert type(built) is RowChangedEvent and built == made and hash(built) == hash(made)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.commit_ts = 8  # type: ignore[misc]
    with pytest.raises(ValueError, match="neither columns nor pre_columns"):
        build_row_event(7, "s", "t", None, None)


def test_a_geometry_value_is_bytes_as_every_codec_reads_it():
    assert Column("g", ColumnType.GEOMETRY, ColumnFlag(0), b"\x01\x01").holds_bytes
