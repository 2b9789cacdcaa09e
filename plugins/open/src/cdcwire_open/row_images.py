"""Which columns of a row change travel, given the sink's parameters.

Shared by the encoder (what to write) and ``carried`` (what a reader gets
back), so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Optional

from cdcwire.plugin_api import Columns, EncodeError, RowChangedEvent

from .options import OpenOptions

#: (new image, old image) as sent: insert (new, None), update (new, old), delete (None, old).
#: An update sent without old values is (new, None): on the wire it is an insert.
Images = tuple[Optional[Columns], Optional[Columns]]

LARGE_ROW_OPTION = "large-message-handle-option=handle-key-only, the row being over max-message-bytes"


def handle_key_only(columns: Columns) -> Columns:
    return tuple(c for c in columns if c.is_handle_key)


def _handle_keys_of(row: RowChangedEvent, columns: Columns, option: str) -> Columns:
    """The handle-key columns of an image; none at all is an error, never an empty image.

    An empty ``u`` or ``d`` tells a consumer nothing about which row changed; the
    reference refuses such a row (``ErrOpenProtocolCodecInvalidData``) and so do we.
    """
    kept = handle_key_only(columns)
    if not kept:
        kind = "insert" if row.pre_columns is None else "delete" if row.columns is None else "update"
        raise EncodeError(
            f"open-protocol: the {kind} of {row.schema}.{row.table} at commit ts {row.commit_ts}"
            f" cannot be sent with only its handle-key columns ({option}): the table has no handle-key column"
        )
    return kept


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
    """The images a row change is written with; ``only_handle_key`` is the large-message fallback.

    Raises EncodeError when an image cut to handle-key columns would be empty.
    """
    new, old = row.columns, row.pre_columns
    if new is None:  # delete
        assert old is not None
        if only_handle_key:
            old = _handle_keys_of(row, old, LARGE_ROW_OPTION)
        elif options.delete_only_handle_key:
            old = _handle_keys_of(row, old, "delete-only-output-handle-key-columns=true")
        elif not options.old_value:
            old = _handle_keys_of(row, old, "enable-old-value=false")
        return None, old
    if only_handle_key:
        new = _handle_keys_of(row, new, LARGE_ROW_OPTION)
    if old is None:  # insert
        return new, None
    if not options.old_value:
        return new, None
    if only_handle_key:
        old = _handle_keys_of(row, old, LARGE_ROW_OPTION)
    if options.only_updated_columns:
        old = _changed_only(row.columns, old)  # type: ignore[arg-type]
        if not old:
            # No column changed: the reference leaves the empty "p" out (Go's omitempty), so the
            # row reads back as an insert of the same values (an upsert), never as an empty image.
            return new, None
    return new, old
