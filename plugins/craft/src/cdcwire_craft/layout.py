"""Numbers of the craft message layout (spec "Message format", REFERENCE.md "Craft")."""

from __future__ import annotations

#: The leading uvarint of every message.
VERSION = 1

#: Event type codes in the header's type chunk.
EVENT_ROW = 1
EVENT_DDL = 2
EVENT_RESOLVED = 3

#: The first byte of a column group.
GROUP_NEW = 1
GROUP_OLD = 2

#: Partition id and term id that mean "none" / NULL.
NONE_ID = -1

#: The reference's size estimate (Go: Headers.appendHeader, newColumnGroup):
#: per row 32 + len(schema) + len(table); per column len(name) + len(value) + 16.
HEADER_ESTIMATE = 32
COLUMN_ESTIMATE = 16
