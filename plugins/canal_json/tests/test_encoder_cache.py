"""The encoder's layout cache is bounded, and each table's last layout goes with it.

The last layout per table is a shortcut into the layout cache: emptied with it, so that
it never keeps a layout the cache let go of (and stays as bounded), and never changes
what is written.
"""

from __future__ import annotations

from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire.plugin_api import BoundedCache
from cdcwire_canal_json import CanalJSONEncoder, CanalOptions

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def _row(table: str, ts: int) -> RowChangedEvent:
    columns = (
        Column("id", ColumnType.INT, KEY, ts, "int(11)"),
        Column("v", ColumnType.VARCHAR, ColumnFlag(0), "x"),
    )
    return RowChangedEvent(ts, "s", table, columns, None)


def _encoder() -> CanalJSONEncoder:
    return CanalJSONEncoder(CanalOptions(), clock=lambda: 1)


def test_the_last_layouts_hold_only_what_the_bounded_layout_cache_holds() -> None:
    encoder = _encoder()
    assert isinstance(encoder._layouts, BoundedCache) and encoder._layouts.limit == 4096
    encoder._layouts.limit = 2
    rows = [_row(table, ts) for ts, table in enumerate("abcab" "cca", start=1)]
    for i, row in enumerate(rows):
        assert encoder.encode_event(row) == _encoder().encode_event(row)
        assert len(encoder._layouts) <= 2
        kept = {id(layout) for layout in encoder._layouts.values()}
        assert all(id(layout) in kept for _, layout in encoder._last_layouts.values()), i
        assert ("s", row.table) in encoder._last_layouts
    assert len(encoder._last_layouts) <= 2
