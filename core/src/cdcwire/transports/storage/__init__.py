"""TiCDC's storage sink layout (``s3://bucket/prefix`` or a local directory), read back as events.

TiCDC's storage sink writes no messages: it writes files (csv or canal-json rows, one per
line) under ``<schema>/<table>/<version>/...``, a schema file per table version, an index
file per data directory and a checkpoint file at the root. This room reads that layout
in the order TiCDC's own consumer replays it (:mod:`.replay`); each module holds one idea:
the location and its parameters (:mod:`.location`), where an event came from
(:mod:`.places`), what a path names (:mod:`.paths`), schema files and their checksum
(:mod:`.schema_files`), the columns they declare (:mod:`.table_columns`), csv records
(:mod:`.csv_fields`) and rows (:mod:`.csv_rows`), one snapshot of the layout
(:mod:`.layout`), where a read of it stopped (:mod:`.position`).
"""
