"""Committing a table's files to an Apache Iceberg table: the executors write, the driver commits.

The Iceberg counterpart of :mod:`.delta_tables`, through PyIceberg (``cdcwire[iceberg]``, no
JVM jar). A run's executors write the touched buckets' new Parquet files under the table's
location (``OUT/schema.table/data/``, named by :mod:`.table_buckets`); the driver then commits
them with :func:`commit_files`: ONE snapshot that adds the new files and removes the ones they
replace (PyIceberg's ``update_snapshot().overwrite()`` producer with ``append_data_file`` and
``delete_data_file``, an ``overwrite`` snapshot; ``merge_append()``, an ``append``, when nothing
is removed. Its ``add_files`` only appends, and its ``overwrite``/``delete`` take row filters
and rewrite rows, not given files). The driver reads only the new files' footers (row
counts, column stats). The snapshot's summary carries the commit ts the table is applied up to
(``cdcwire.applied_ts``, the Delta tables' key), so a killed run re-run commits nothing twice:
a commit at or below the table's applied ts is skipped.

Catalog. By default PyIceberg's SQL catalog on a SQLite file, ``OUT/_cdcwire/iceberg-catalog.db``
(:data:`CATALOG_FILE`), warehouse ``OUT``: no server, and any Iceberg reader that takes a SQL
catalog (PyIceberg, polars, daft, Spark's JdbcCatalog) opens it. Any other catalog PyIceberg
supports (REST, Glue, Hive, SQL on PostgreSQL) through the properties the caller gives
(``load_catalog`` properties: ``type``, ``uri``, ...). One namespace per upstream schema, one
table per upstream table. A table is created at ``OUT/schema.table``, whatever the catalog, and
the executors write where its metadata says it lives (a renamed table keeps its location: see
:mod:`.iceberg_renames`). Within a run (:func:`one_run`) the catalog is opened once and each
table loaded once: a run over a thousand tables otherwise opened a catalog and loaded every table
three times, most of its commit step.

Field ids: the written files carry none (the executors write plain Parquet from Spark's
rows; the ids of a column added in the run exist only once the driver commits). The table
carries a name mapping (``schema.name-mapping.default``, set when it is created and kept by
PyIceberg's schema updates), which is how the Iceberg spec reads files without ids: every
reader (PyIceberg, polars, Spark, Trino) maps the files' columns to fields by name. A rename
keeps the old name in the mapping (old files still read), so it could be metadata-only; but a
column dropped and added again under the same name would read the old files' values, so a
DROP or RENAME COLUMN rewrites the files (:func:`change_files`, as :mod:`.column_ddls` does
for Delta): no file then holds a column under a name the mapping gives another field.

Schema: created from the files' Arrow schema (every column nullable: older files lack later
columns); a later commit evolves it first, in the same transaction, through Iceberg's own
``update_schema().union_by_name``: columns added, types widened (int to bigint, float to
double, decimal precision), never narrowed (a narrower file reads as the wider type). A change
Iceberg does not allow (string to int, a decimal's scale) is a one-line error.

Partitioning: none (an unpartitioned spec). The bucket layout hashes keys with Spark's
``xxhash64`` (:mod:`.table_buckets`), Iceberg's ``bucket(N, key)`` with 32-bit Murmur3: files
of one of our buckets hold rows of every Iceberg bucket, so the spec would lie. The bucket is
in each file's name, as for Parquet and Delta.
"""

from __future__ import annotations

import shutil
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Optional
from urllib.parse import unquote, urlparse

import pyarrow as pa

from ...foundation.errors import CdcwireError
from ...foundation.extras import extra_required
from .delta_tables import APPLIED_TS

#: The default catalog's SQLite file, under OUT.
CATALOG_FILE = "_cdcwire/iceberg-catalog.db"
#: The catalog's name (PyIceberg's ``load_catalog`` name; the SQL catalog's ``catalog_name`` column).
CATALOG_NAME = "cdcwire"
#: Where a table's data files are written, under its location (Iceberg's convention).
DATA_DIR = "data"
#: The namespace a table passes through while renamed (:mod:`.iceberg_renames`): no table of OUT.
RENAMING = "cdcwire_renaming"
#: Held while a catalog is opened and while a namespace is created: the SQL catalog creates its
#: tables when first opened, and neither that nor a namespace's insert tolerates a second thread
#: doing the same at once (the tables are committed side by side, from driver threads).
_CREATING = threading.Lock()


def _pyiceberg():
    with extra_required("iceberg", "materialize --format iceberg"):
        import pyiceberg.catalog
        import pyiceberg.io.pyarrow  # noqa: F401  (the footers' stats)
    return pyiceberg


def catalog(out: str, properties: Optional[Mapping[str, str]] = None):
    """The catalog of OUT's tables: ``properties`` (PyIceberg ``load_catalog`` properties) or,
    without them, the SQL catalog on ``OUT/_cdcwire/iceberg-catalog.db`` with warehouse OUT.
    Within :func:`one_run`, the run's one catalog."""
    return opened(out, properties).catalog


def _open(out: str, properties: Optional[Mapping[str, str]]):
    pyiceberg = _pyiceberg()
    default = properties is None
    if default:
        db = Path(out) / CATALOG_FILE
        db.parent.mkdir(parents=True, exist_ok=True)
        properties = {"type": "sql", "uri": f"sqlite:///{db.resolve()}", "warehouse": _uri(out)}
    if properties.get("type") == "sql":  # PyIceberg says "pip install 'pyiceberg[sql-sqlite]'" without it
        with extra_required("iceberg", "materialize --format iceberg"):
            import sqlalchemy  # noqa: F401
    with _CREATING:
        opened = pyiceberg.catalog.load_catalog(CATALOG_NAME, **dict(properties))
        if default:
            _write_ahead(opened)
    return opened


def _write_ahead(opened) -> None:
    """The default catalog's SQLite file in write-ahead-log mode (kept by the file): a commit is
    one append and one fsync to the log instead of a rollback journal's three, and the tables
    committed side by side read while another commits (the log is ``iceberg-catalog.db-wal``
    beside it; every SQLite reader, PyIceberg's or a JDBC driver's, reads it)."""
    with opened.engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA journal_mode=WAL")


class _Tables:
    """OUT's catalog and the tables loaded from it. Outside a run: opened for one call, nothing
    kept. Within :func:`one_run`: one catalog, each table loaded once and kept (a commit updates
    the kept table in place; a rename or drop forgets it), each snapshot's file list read once.
    Only a run's own commits change OUT's tables while it runs (a second writer is refused at its
    commit: the files to remove are not in the table)."""

    def __init__(self, out: str, properties: Optional[Mapping[str, str]], kept: bool) -> None:
        self.catalog = _open(out, properties)
        self.kept = kept
        self._loaded: dict[str, object] = {}
        self._files: dict[tuple[str, int], dict] = {}
        self._lock = threading.Lock()

    def load(self, table: str):
        """The table (None: not in the catalog)."""
        if self.kept:
            with self._lock:
                if table in self._loaded:
                    return self._loaded[table]
        found = _load(self.catalog, table)
        if self.kept and found is not None:
            with self._lock:
                self._loaded[table] = found
        return found

    def forget(self, *tables: str) -> None:
        with self._lock:
            for table in tables:
                self._loaded.pop(table, None)

    def data_files(self, table: str, found) -> dict:
        """The current snapshot's data files by path (read once per snapshot within a run)."""
        snapshot = found.current_snapshot()
        if snapshot is None:
            return {}
        key = (table, snapshot.snapshot_id)
        with self._lock:
            files = self._files.get(key)
        if files is None:
            files = _data_files(found)
            if self.kept:
                with self._lock:
                    self._files[key] = files
        return files

    def close(self) -> None:
        close = getattr(self.catalog, "close", None)
        if close is not None:
            close()


#: The runs under way (:func:`one_run`), by OUT and catalog properties.
_RUNS: dict[tuple, _Tables] = {}


def _key(out: str, properties: Optional[Mapping[str, str]]) -> tuple:
    return (str(out), tuple(sorted(properties.items())) if properties is not None else None)


def opened(out: str, properties: Optional[Mapping[str, str]] = None) -> _Tables:
    """OUT's catalog and tables: the run's (:func:`one_run`), or opened for one call."""
    return _RUNS.get(_key(out, properties)) or _Tables(out, properties, kept=False)


@contextmanager
def one_run(out: str, properties: Optional[Mapping[str, str]] = None) -> Iterator[None]:
    """Within: OUT's catalog opened once and each table loaded once (see :class:`_Tables`),
    from any thread; the catalog is closed at the end."""
    key = _key(out, properties)
    if key in _RUNS:  # nested: the outer run's
        yield
        return
    _RUNS[key] = tables = _Tables(out, properties, kept=True)
    try:
        yield
    finally:
        del _RUNS[key]
        tables.close()


def new_location(out: str, table: str) -> str:
    """Where a new ``table`` ("schema.table") is created: ``OUT/schema.table``, as a URI; under a
    local OUT whose ``schema.table`` directory a renamed table keeps (its metadata is there),
    ``OUT/schema.table-2`` (-3, ...)."""
    if "://" in str(out):
        return f"{_uri(out)}/{table}"
    name, n = table, 1
    while (Path(out) / name / "metadata").is_dir():
        n += 1
        name = f"{table}-{n}"
    return f"{_uri(out)}/{name}"


def table_location(out: str, table: str, properties: Optional[Mapping[str, str]] = None) -> str:
    """The location of ``table``: its metadata's, or where it will be created (:func:`new_location`)."""
    found = opened(out, properties).load(table)
    return found.location().rstrip("/") if found is not None else new_location(out, table)


def table_directory(out: str, table: str, properties: Optional[Mapping[str, str]] = None) -> Path:
    """The local directory of ``table``'s location (the executors read its files there)."""
    return _local(table_location(out, table, properties))


def data_directory(out: str, table: str, properties: Optional[Mapping[str, str]] = None) -> Path:
    """The local directory the executors write ``table``'s new files to (names in
    :func:`commit_files` are relative to the table's location: ``data/bucket-...``)."""
    return table_directory(out, table, properties) / DATA_DIR


def applied_ts(out: str, table: str, properties: Optional[Mapping[str, str]] = None) -> Optional[int]:
    """The commit ts ``table`` was applied up to: the current snapshot's ``cdcwire.applied_ts``;
    None for a table not in the catalog or never committed by a run."""
    found = opened(out, properties).load(table)
    return _applied(found) if found is not None else None


def rows_in(out: str, table: str, properties: Optional[Mapping[str, str]] = None) -> int:
    """The table's rows, from its current snapshot's summary (``total-records``): no file read.
    0 for a table not in the catalog or without a snapshot."""
    found = opened(out, properties).load(table)
    snapshot = found.current_snapshot() if found is not None else None
    if snapshot is None or snapshot.summary is None:
        return 0
    return int(snapshot.summary.additional_properties.get("total-records", 0))


def tables_in(out: str, properties: Optional[Mapping[str, str]] = None) -> list[str]:
    """The tables of OUT ("schema.table"): those of the catalog's namespaces whose location is
    in OUT (a shared catalog may hold tables of other writers)."""
    return sorted(name for name, _ in _tables_of(out, opened(out, properties)))


def applied_of_tables(out: str, properties: Optional[Mapping[str, str]] = None) -> dict[str, int]:
    """Per table of OUT committed by a run, the commit ts it was applied up to (one catalog)."""
    applied = {}
    for name, found in _tables_of(out, opened(out, properties)):
        ts = _applied(found)
        if ts is not None:
            applied[name] = ts
    return applied


def _tables_of(out: str, tables: _Tables):
    """(name, table) of each table of the catalog whose location is a directory of OUT."""
    for namespace in tables.catalog.list_namespaces():
        if namespace[-1] == RENAMING:
            continue
        for identifier in tables.catalog.list_tables(namespace):
            name = ".".join(identifier[-2:])
            found = tables.load(name)
            if found is not None and found.location().rstrip("/").rsplit("/", 1)[0] == _uri(out):
                yield name, found


def active_files(out: str, table: str, properties: Optional[Mapping[str, str]] = None) -> dict[str, int]:
    """The table's current data files (names relative to its location) and their sizes: what
    :class:`~.table_buckets.Layout` takes. Empty for a table not in the catalog."""
    tables = opened(out, properties)
    found = tables.load(table)
    if found is None:
        return {}
    base = found.location().rstrip("/") + "/"
    return {_relative(f.file_path, base): f.file_size_in_bytes for f in tables.data_files(table, found).values()}


def commit_files(
    out: str, table: str, added: Iterable[str], removed: Iterable[str], applied: int,
    schema: Optional[pa.Schema] = None, wiped: bool = False, properties: Optional[Mapping[str, str]] = None,
) -> bool:
    """Commit one snapshot of ``table`` that adds the ``added`` files and removes the ``removed``
    ones (names relative to the table's location, written there already), its summary carrying
    ``applied``; True if committed, False if the table is already applied up to ``applied`` (a
    killed run's commit done before it died: nothing twice).

    ``schema``: the files' Arrow schema (default: the first added file's; required without
    files). A new table is created with it in the same commit (in the schema's namespace,
    created if missing); an existing one's schema is evolved to take it first, in the same
    transaction. ``wiped``: a TRUNCATE or DROP came before the files: every current file is
    removed and the table's schema becomes ``schema`` (columns it lacks dropped), as a table
    made anew."""
    _pyiceberg()
    tables = opened(out, properties)
    found = tables.load(table)
    done = _applied(found) if found is not None else None
    if done is not None and done >= applied:
        return False
    _commit(out, tables, found, table, list(added), list(removed), applied, schema, wiped)
    return True


def _commit(out: str, tables: _Tables, found, table: str, added: list[str], removed: list[str],
            applied: Optional[int], schema: Optional[pa.Schema], wiped: bool) -> None:
    """:func:`commit_files` past its applied-ts check (``applied`` None: the summary says none)."""
    from pyiceberg.io import load_file_io

    cat = tables.catalog
    base = found.location().rstrip("/") if found is not None else new_location(out, table)
    io = load_file_io(cat.properties, base)
    if schema is None:
        if not added:
            raise CdcwireError(f"Iceberg table {table}: a commit without files needs the rows' schema")
        import pyarrow.parquet as pq

        with io.new_input(f"{base}/{added[0]}").open() as first:
            schema = pq.read_schema(first)
    schema = pa.schema([f.with_nullable(True) for f in schema])
    if found is not None:
        tx = found.transaction()
        current = tables.data_files(table, found)
        if wiped:
            removed = list(current)
            _replace_schema(tx, schema, table)
        else:
            removed = [f"{base}/{name}" for name in removed]
            if not _holds(found.schema(), schema):  # most runs bring no new column: no schema update to apply
                _evolve(tx, schema, table)
        stale = [p for p in removed if p not in current]
        if stale:
            raise CdcwireError(
                f"Iceberg table {table}: {len(stale)} file(s) to remove are not in its current snapshot"
                f" ({_relative(stale[0], base + '/')}); another writer committed since the run read it: re-run")
        again = [name for name in added if f"{base}/{name}" in current]
        if again:  # committed twice, its rows would be read twice
            raise CdcwireError(f"Iceberg table {table}: {len(again)} file(s) to add are in it already ({again[0]})")
        gone = [current[p] for p in removed]
    else:
        namespace = table.split(".", 1)[0]
        create_namespace(cat, namespace)
        tx = cat.create_table_transaction(identifier(table), schema=schema, location=base)
        tx.set_properties(**{"schema.name-mapping.default": tx.table_metadata.schema().name_mapping.model_dump_json()})
        gone = []
    update = tx.update_snapshot(snapshot_properties={APPLIED_TS: str(applied)} if applied is not None else {})
    # an "append" when the run only adds (what an incremental reader streams without a flag), an
    # "overwrite" when it also removes; the append merges small manifests as Iceberg's does
    with (update.overwrite() if gone else update.merge_append()) as snapshot:
        for data_file in gone:
            snapshot.delete_data_file(data_file)
        for name in added:  # the footer's row count and column stats, mapped to field ids by name
            snapshot.append_data_file(_data_file(io, tx.table_metadata, base, name, table))
    tx.commit_transaction()  # an existing table's object is updated in place; a new one is loaded when asked for
    if found is None:
        tables.forget(table)


def change_files(out: str, table: str, change, run: int, properties: Optional[Mapping[str, str]] = None) -> None:
    """Every file of the table passed through ``change`` (a pyarrow table to a pyarrow table: a
    column DDL, see :mod:`.column_ddls`) into new files of the same buckets, committed in one
    snapshot that replaces them all, the table's schema becoming theirs (a dropped or renamed
    column leaves it; a renamed one comes back with a new field id: the files are rewritten, so
    no old file could read through the name mapping under another column); the snapshot keeps
    the table's applied ts. The Iceberg counterpart of :func:`.delta_tables.change_delta_files`."""
    import uuid

    import pyarrow.parquet as pq
    from pyiceberg.io import load_file_io

    from .table_buckets import bucket_of_name, file_name

    tables = opened(out, properties)
    found = tables.load(table)
    if found is None:
        raise CdcwireError(f"Iceberg table {table} is not in the catalog of {out}")
    io = load_file_io(tables.catalog.properties, found.location())
    token = uuid.uuid4().hex[:8]
    directory = _local(found.location()) / DATA_DIR
    directory.mkdir(parents=True, exist_ok=True)
    added = []
    for n, path in enumerate(sorted(tables.data_files(table, found))):
        with io.new_input(path).open() as source:
            rows = change(pq.read_table(source))
        found_bucket = bucket_of_name(Path(path).name)
        name = file_name(found_bucket[0], found_bucket[1], run, token, n) if found_bucket \
            else f"columns-{run:06d}-{token}-{n:05d}.parquet"
        pq.write_table(rows, directory / name)
        added.append(f"{DATA_DIR}/{name}")
    # the table's columns as the change leaves them (a file may lack a column added after it)
    schema = change(found.schema().as_arrow().empty_table()).schema
    _commit(out, tables, found, table, added, [], _applied(found), schema, wiped=True)


def truncate_table(out: str, table: str, applied: int, properties: Optional[Mapping[str, str]] = None) -> bool:
    """A TRUNCATE with nothing after it: one snapshot removing every file (the schema stays),
    carrying ``applied``; False if the table is already applied up to it."""
    return commit_files(out, table, [], [], applied, schema=_arrow_schema(out, table, properties),
                        wiped=True, properties=properties)


def drop_table(out: str, table: str, properties: Optional[Mapping[str, str]] = None) -> None:
    """A DROP with nothing after it: the table leaves the catalog and its files are removed
    (its directory under a local OUT, files never committed with it; else the files its
    metadata names). A table not in the catalog: nothing to do."""
    tables = opened(out, properties)
    found = tables.load(table)
    if found is None:
        return
    tables.forget(table)
    if "://" in str(out):
        tables.catalog.purge_table(identifier(table))
        return
    tables.catalog.drop_table(identifier(table))
    shutil.rmtree(_local(found.location()), ignore_errors=True)


def expire_snapshots(out: str, older_than, properties: Optional[Mapping[str, str]] = None) -> dict[str, int]:
    """Expire the snapshots of OUT's tables taken before ``older_than`` (a ``datetime``, or a
    ``timedelta`` back from now), never a table's current one, and remove the files only they
    read (data files, manifests, manifest lists; under a local OUT); per table, the snapshots
    expired. Each run adds a snapshot to every table it changes, kept until expired: time travel
    reaches back as far as the snapshots kept. Run it between runs (a run's files are committed
    with it; files a killed run wrote and never committed are removed too, being read by no
    snapshot). PyIceberg's own ``table.maintenance.expire_snapshots()`` expires without
    removing files."""
    import datetime as dt

    cutoff = dt.datetime.now(dt.timezone.utc) - older_than if isinstance(older_than, dt.timedelta) else older_than
    expired = {}
    tables = opened(out, properties)
    for name, found in list(_tables_of(out, tables)):
        old = [s for s in found.snapshots() if s.timestamp_ms < cutoff.timestamp() * 1000
               and s.snapshot_id != found.current_snapshot().snapshot_id]
        if not old:
            continue
        before = _files_of(found, found.snapshots())
        found.maintenance.expire_snapshots().by_ids([s.snapshot_id for s in old]).commit()
        found = tables.catalog.load_table(identifier(name))
        tables.forget(name)
        if "://" not in str(out):
            kept = _files_of(found, found.snapshots())
            location = found.location().rstrip("/") + "/"
            unread = {_local(p) for p in before - kept if p.startswith(location)}
            data = _local(found.location()) / DATA_DIR  # and the files a killed run wrote, never committed
            unread.update(p for p in data.glob("*.parquet") if p not in {_local(k) for k in kept})
            for path in unread:
                path.unlink(missing_ok=True)
        expired[name] = len(old)
    return expired


def _files_of(found, snapshots) -> set[str]:
    """Every file the snapshots read: manifest lists, manifests, data files."""
    files = set()
    for snapshot in snapshots:
        files.add(snapshot.manifest_list)
        for manifest in snapshot.manifests(found.io):
            files.add(manifest.manifest_path)
            files.update(e.data_file.file_path for e in manifest.fetch_manifest_entry(found.io, discard_deleted=True))
    return files


def _data_file(io, metadata, base: str, name: str, table: str):
    """The DataFile of a written file: its footer's row count and column stats."""
    from pyiceberg.io.pyarrow import parquet_file_to_data_file

    try:
        return parquet_file_to_data_file(io, metadata, f"{base}/{name}")
    except ValueError as exc:  # its columns do not fit the table's schema
        raise CdcwireError(f"Iceberg table {table}: file {name} does not fit the table's schema: {_one_line(exc)[:300]};"
                           " pass the files' schema to commit_files") from None


def _applied(found) -> Optional[int]:
    snapshot = found.current_snapshot()
    if snapshot is None or snapshot.summary is None:
        return None
    value = snapshot.summary.additional_properties.get(APPLIED_TS)
    return int(value) if value is not None else None


def _arrow_schema(out: str, table: str, properties) -> pa.Schema:
    found = opened(out, properties).load(table)
    if found is None:
        raise CdcwireError(f"Iceberg table {table} is not in the catalog of {out}")
    return found.schema().as_arrow()


def _evolve(tx, schema: pa.Schema, table: str) -> None:
    """The table's schema made to take files of ``schema``: columns added, types widened."""
    from pyiceberg.exceptions import ValidationError

    try:
        with tx.update_schema() as update:
            update.union_by_name(schema)
    except (ValidationError, ValueError) as exc:
        raise CdcwireError(f"Iceberg table {table}: the rows' schema does not evolve the table's: {_one_line(exc)}"
                           " (Iceberg widens int to bigint, float to double and a decimal's precision only)") from None


def _replace_schema(tx, schema: pa.Schema, table: str) -> None:
    """The table made anew (after a TRUNCATE or DROP): the columns ``schema`` lacks, or has with
    a type the column cannot take, dropped; then the schema evolved to it (a column back with
    another type gets a new field id)."""
    wanted = {f.name: f for f in schema}
    stale = [f.name for f in tx.table_metadata.schema().fields if f.name not in wanted or not _takes(f, wanted[f.name])]
    if stale:
        with tx.update_schema(allow_incompatible_changes=True) as update:
            for name in stale:
                update.delete_column(name)
    _evolve(tx, schema, table)


def _holds(current, schema: pa.Schema) -> bool:
    """Whether the Iceberg schema ``current`` has every column of ``schema`` with its very type."""
    fields = {f.name: f for f in current.fields}
    return all(f.name in fields and fields[f.name].field_type == _iceberg_type(f) for f in schema)


def _iceberg_type(arrow_field: pa.Field):
    from pyiceberg.io.pyarrow import pyarrow_to_schema
    from pyiceberg.table.name_mapping import MappedField, NameMapping

    return pyarrow_to_schema(pa.schema([arrow_field]), name_mapping=NameMapping([MappedField(field_id=1, names=[arrow_field.name])]),
                             format_version=2).find_field(arrow_field.name).field_type


def _takes(field, arrow_field: pa.Field) -> bool:
    """Whether Iceberg's ``field`` takes values of ``arrow_field`` (the same type or a widening)."""
    from pyiceberg.exceptions import ResolveError
    from pyiceberg.schema import promote

    other = _iceberg_type(arrow_field)
    for narrow, wide in ((other, field.field_type), (field.field_type, other)):
        try:
            if narrow == wide or promote(narrow, wide) == wide:
                return True
        except ResolveError:
            pass
    return False


def _data_files(found) -> dict:
    """The current snapshot's data files by path."""
    snapshot = found.current_snapshot()
    if snapshot is None:
        return {}
    files = {}
    for manifest in snapshot.manifests(found.io):
        for entry in manifest.fetch_manifest_entry(found.io, discard_deleted=True):
            files[entry.data_file.file_path] = entry.data_file
    return files


def _load(cat, table: str):
    from pyiceberg.exceptions import NoSuchTableError

    try:
        return cat.load_table(identifier(table))
    except NoSuchTableError:
        return None


def create_namespace(cat, namespace: str) -> None:
    """The namespace created if missing (one thread at a time: the SQL catalog's insert is not safe twice)."""
    with _CREATING:
        cat.create_namespace_if_not_exists(namespace)


def identifier(table: str) -> tuple[str, str]:
    schema, name = table.split(".", 1)
    return (schema, name)


def _uri(out: str) -> str:
    return str(out).rstrip("/") if "://" in str(out) else Path(out).resolve().as_uri()


def _local(location: str) -> Path:
    """The local path of a ``file:`` location (a path without a scheme stays as it is)."""
    parsed = urlparse(location)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else Path(location)


def _relative(path: str, base: str) -> str:
    return path[len(base):] if path.startswith(base) else path


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())
