"""Which columns of a row change travel, given the sink's parameters.

Shared by the encoder (what to write) and ``carried`` (what a reader gets
back), so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Optional

from cdcwire.events import Columns, RowChangedEvent

from .options import OpenOptions

#: (new image, old image) as sent: insert (new, None), update (new, old), delete (None, old).
#: An update sent without old values is (new, None): on the wire it is an insert.
Images = tuple[Optional[Columns], Optional[Columns]]


def handle_key_only(columns: Columns) -> Columns:
    return tuple(c for c in columns if c.is_handle_key)


def _changed_only(new: Columns, old: Columns) -> Columns:
    """The old columns whose value differs from the new image (or that the new image lacks)."""
    by_name = {c.name: c for c in new}
    kept = []
    for c in old:
        n = by_name.get(c.name)
        if n is None or n.type != c.type or type(n.value) is not type(c.value) or n.value != c.value:
            kept.append(c)
    return tuple(kept)


def sent_images(row: RowChangedEvent, options: OpenOptions, only_handle_key: bool = False) -> Images:
    """The images a row change is written with; ``only_handle_key`` is the large-message fallback."""
    new, old = row.columns, row.pre_columns
    if new is None:  # delete
        assert old is not None
        if only_handle_key or options.delete_only_handle_key or not options.old_value:
            old = handle_key_only(old)
        return None, old
    if only_handle_key:
        new = handle_key_only(new)
    if old is None:  # insert
        return new, None
    if not options.old_value:
        return new, None
    if only_handle_key:
        old = handle_key_only(old)
    if options.only_updated_columns:
        old = _changed_only(row.columns, old)  # type: ignore[arg-type]
    return new, old
