"""From change events to tables: typed changelogs per table and materialized copies of the upstream tables in Parquet and Delta."""
