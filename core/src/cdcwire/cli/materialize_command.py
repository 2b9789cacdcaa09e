"""``cdcwire materialize SOURCE_URI --out DIR [--format parquet|delta|iceberg]``: a change stream applied
into one table per upstream table, continuing from where the last run into ``DIR`` stopped.

Progress on stderr; a summary per table (change events applied per kind, replays counted
once; rows of the table inserted, updated, deleted; duplicates dropped, key-only rows not
applied, zero dates read as null) on stdout."""

from __future__ import annotations

import argparse

from ..foundation.errors import CdcwireError
from .run_command import _one_line, spark_failure
from .reading_flags import SOURCE_URI, add_skip_damaged, add_topics
from .spark_flags import add_spark_flags, progress, session_for
from .uri_argument import FROM_ENV_OR_FILE, source_uri_argument


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("materialize", help="apply a change stream into Parquet, Delta or Iceberg tables, one per upstream table")
    p.add_argument("source_uri", metavar=SOURCE_URI, type=source_uri_argument,
                   help="e.g. kafka://127.0.0.1:9092/orders?protocol=canal-json&enable-tidb-extension=true, or a TiCDC"
                   " storage-sink layout: s3://bucket/prefix?protocol=csv&include-commit-ts=true (local:///dir?...)"
                   + FROM_ENV_OR_FILE)
    p.add_argument("--out", required=True, help="directory of the tables and of the run's state (kept between runs)")
    p.add_argument("--format", choices=("parquet", "delta", "iceberg"), default="parquet", help="table format (default parquet)")
    p.add_argument("--catalog-property", action="append", default=None, metavar="KEY=VALUE", type=_catalog_property,
                   help="with --format iceberg: a property of the Iceberg catalog to keep the tables in (PyIceberg's"
                   " load_catalog properties: type=rest uri=https://..., repeat for each); none: a SQL catalog on"
                   " SQLite under --out")
    add_topics(p)
    add_skip_damaged(p, "source_uri")
    p.add_argument("--tables", help="tables to apply, in TiDB's table-filter syntax ('shop.*,!shop.tmp_*'); later runs into"
                   " --out give the same")
    p.add_argument("--time-zone", default="UTC", help="the time zone TIMESTAMP values are read in (default UTC)")
    p.add_argument(
        "--fail-on-data-loss", choices=("true", "false"), default="true",
        help="true (default): fail when a partition no longer holds the offset the last run stopped at (retention) "
        "or ends before it (the topic was deleted and written again); false: warn and read it from its earliest offset",
    )
    p.add_argument(
        "--ddl-policy", choices=("apply", "skip-destructive", "stop"), default="apply",
        help="apply (default): run the DDLs as a replay does (truncate, drop, rename); skip-destructive: skip and report"
        " truncates, drops and partition changes; stop: stop at the first DDL not applied, naming it",
    )
    p.add_argument("--include-ddls", metavar="KINDS",
                   help="apply only these DDL kinds, comma-separated, as the summary names them (TRUNCATE_TABLE,"
                   " ADD_COLUMN, ...; globs such as DROP_*); the others are skipped and reported (default: every kind)")
    p.add_argument("--exclude-ddls", metavar="KINDS",
                   help="skip and report these DDL kinds (e.g. TRUNCATE_TABLE,DROP_TABLE), after --include-ddls")
    add_spark_flags(p)
    return p


def _catalog_property(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{key.strip() or text!r} is not KEY=VALUE (e.g. type=rest)")
    return key.strip(), value


def _catalog(args: argparse.Namespace):
    """The Iceberg catalog's properties from ``--catalog-property`` (None: the default catalog)."""
    if not args.catalog_property:
        return None
    if args.format != "iceberg":
        raise CdcwireError(f"--catalog-property is for --format iceberg; --format {args.format} keeps its tables in --out alone")
    return dict(args.catalog_property)


def run(args: argparse.Namespace) -> int:
    from ..foundation.extras import extra_required
    from ..sinks.sink import open_sink
    from ..transports.storage.location import StorageLocation, is_storage_uri

    with extra_required("spark", "cdcwire materialize (it runs on Spark)"):
        from .. import spark as cs

    # a bad URI, a source that cannot be applied, or nothing new since the last run: said before Spark starts
    StorageLocation.parse(args.source_uri) if is_storage_uri(args.source_uri) else open_sink(args.source_uri)
    from ..spark.tables.ddl_policy import policy_of
    from ..spark.tables.materialize import prepare_materialize

    catalog = _catalog(args)  # before Spark starts
    policy_of(args.ddl_policy, args.include_ddls, args.exclude_ddls)
    try:
        prepared = prepare_materialize(args.source_uri, args.out, format=args.format, topics=args.topics,
                                       tables=args.tables, fail_on_data_loss=args.fail_on_data_loss == "true")
    except CdcwireError as exc:
        raise CdcwireError(_one_line(str(exc), exc)) from None
    if prepared.nothing_new is not None:
        print(prepared.nothing_new.report())
        return 0
    spark = session_for(args)
    try:
        with progress(spark, args, "cdcwire materialize"):
            summary = cs.materialize(spark, args.source_uri, args.out, format=args.format, topics=args.topics,
                                     tables=args.tables, time_zone=args.time_zone,
                                     fail_on_data_loss=args.fail_on_data_loss == "true",
                                     ddl_policy=args.ddl_policy, catalog=catalog,
                                     include_ddls=args.include_ddls, exclude_ddls=args.exclude_ddls)
    except CdcwireError as exc:
        raise CdcwireError(_one_line(str(exc), exc)) from None
    except Exception as exc:  # Spark's own failure: its reason, not a JVM trace
        raise CdcwireError(_one_line(spark_failure(exc), exc)) from None
    print(summary.report())
    return 0
