"""A table's announcement: what a codec that describes tables in their own messages (simple's
BOOTSTRAP) is given in every partition of a table's topic when the table's first row is routed.

TiCDC's bootstrap worker sends a table's BOOTSTRAP to every partition of its topic (or to
partition 0 only) as soon as the table's first row comes, whichever partition that row goes to:
a consumer of any one partition then has every table's schema. cdcwire's encoders each write
one partition, so the dispatcher routes the announcement there, before the row
(:attr:`cdcwire.contract.codec.EventPolicy.announce_tables`); the encoder of each partition turns it into
its message. It is not a change: it carries the row only for the table it describes (its
columns, from which an encoder derives the table's schema), and only codecs that ask get it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .events import RowChangedEvent


@dataclass(frozen=True, slots=True)
class TableAnnouncement:
    """The table of ``row`` is about to have rows in the topic: describe it in this partition.
    An encoder that has described the table already (with these columns) writes nothing."""

    row: RowChangedEvent

    @property
    def commit_ts(self) -> int:
        return self.row.commit_ts

    @property
    def schema(self) -> str:
        return self.row.schema

    @property
    def table(self) -> str:
        return self.row.table
