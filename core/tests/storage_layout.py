"""A TiCDC storage-sink layout written file by file for the tests, as TiCDC lays it out:
schema files named by their checksum, data files, index files, the root checkpoint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from cdcwire.transports.storage.schema_files import SchemaFile, TableCol


class Layout:
    def __init__(self, root: Path) -> None:
        self.root = root

    def uri(self, **params: str) -> str:
        query = "&".join(f"{k}={v}" for k, v in {"protocol": "csv", **params}.items())
        return f"local://{self.root}?{query}"

    def put(self, path: str, data: bytes) -> None:
        """Written aside and renamed into place, as TiCDC's storage writes a file: a reader
        following the layout (a stream) never sees half of one."""
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        aside = target.with_name(f".{target.name}.tmp")
        aside.write_bytes(data)
        aside.replace(target)

    def checkpoint(self, ts: int) -> None:
        self.put("metadata", json.dumps({"checkpoint-ts": ts}).encode())

    def schema(self, schema: str, table: str, version: int, columns: Optional[list[TableCol]], query: str = "",
               ddl_type: int = 0, table_id: Optional[int] = None) -> str:
        sf = SchemaFile(schema, table, version, query, ddl_type, None if columns is None else tuple(columns),
                        len(columns or ()))
        head = str(table_id) if table_id is not None else "/".join(p for p in (schema, table) if p)
        path = f"{head}/meta/{sf.file_name()}"
        self.put(path, sf.marshal())
        return path

    def data(self, directory: str, index: int, lines: list[str], ext: str = ".csv", width: int = 6,
             terminator: str = "\r\n", indexed: bool = True) -> str:
        name = f"CDC{index:0{width}d}{ext}"
        self.put(f"{directory}/{name}", "".join(line + terminator for line in lines).encode())
        if indexed:
            self.put(f"{directory}/meta/CDC.index", (name + "\n").encode())
        return f"{directory}/{name}"
