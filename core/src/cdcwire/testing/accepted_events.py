"""Events the core's check accepts but the tidy strategies (:mod:`.strategies`) never make: a
column's type text as declared, bare (``decimal``, ``bit``: no width) or absent, with values
wider than the declared width. Whatever an encoder writes of such an event, the same plugin's
decoder must read back; the conformance kit checks it for every protocol
(``CodecConformance.test_every_event_the_check_accepts_reads_back_with_the_same_plugin``)."""

from __future__ import annotations

from typing import Any, Callable

from hypothesis import assume
from hypothesis import strategies as st

from ..foundation.errors import InvalidEventError
from ..model.events import Column, RowChangedEvent
from ..values.type_codes import ColumnFlag as F
from ..values.type_codes import ColumnType as T
from ..model.validation import check_event
from .strategies import COLUMN_KINDS, KEY_FLAGS

#: Values past the declared widths: a DECIMAL of any precision up to 65, a BIT up to 64 bits.
_WIDER = {
    T.DECIMAL: st.builds(lambda i, f: f"{i}.{f}" if f else str(i),
                         st.integers(-(10**30), 10**30), st.integers(0, 10**20)),
    T.BIT: st.integers(0, (1 << 64) - 1),
}


@st.composite
def accepted_rows(draw: Callable) -> RowChangedEvent:
    """An INSERT of a handle-key INT and a few columns, each with its type text declared, bare or
    absent, that :func:`cdcwire.model.validation.check_event` accepts."""
    cols = [Column("id", T.INT, KEY_FLAGS, draw(st.integers(0, 1000)), "int(11)")]
    for i, kind in enumerate(draw(st.lists(st.sampled_from(COLUMN_KINDS), min_size=1, max_size=4,
                                           unique_by=lambda k: k.label))):
        text = draw(st.sampled_from((kind.mysql_type, kind.mysql_type.split("(")[0].split(" ")[0], None)))
        if kind.flags & F.UNSIGNED and text is not None and "unsigned" not in text:
            text += " unsigned"
        values: Any = kind.values
        if kind.type in _WIDER:
            values = st.one_of(values, _WIDER[kind.type])
        cols.append(Column(f"c{i}", kind.type, kind.flags | F.NULLABLE, draw(values), text))
    event = RowChangedEvent(draw(st.integers(1, 1 << 40)), "test", "accepted", tuple(cols))
    try:
        check_event(event)
    except InvalidEventError:
        assume(False)
    return event

