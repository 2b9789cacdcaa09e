"""Run by PyFlink's own Python (``.venv-flink``), not by pytest: reads directories of
debezium-json lines with Flink's filesystem connector and prints every changelog row Flink
yields as one JSON line ``[source, row kind, [fields...]]``.

Arguments: the table's columns in Flink SQL, then one or more ``NAME=DIR[,ignore]``: a source
table over DIR (``ignore``: ``debezium-json.ignore-parse-errors = true``). One streaming job
reads them all (a job costs half a minute to start on a small machine).
"""

import json
import sys

from pyflink.table import EnvironmentSettings, TableEnvironment


def main() -> None:
    columns, sources = sys.argv[1], sys.argv[2:]
    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    env.get_config().set("parallelism.default", "1")
    selects = []
    for source in sources:
        name, _, spec = source.partition("=")
        path, _, flag = spec.partition(",")
        env.execute_sql(
            f"CREATE TABLE {name} ({columns}) WITH ("
            f" 'connector' = 'filesystem', 'path' = '{path}', 'format' = 'debezium-json',"
            f" 'debezium-json.schema-include' = 'true',"
            f" 'debezium-json.ignore-parse-errors' = '{'true' if flag == 'ignore' else 'false'}')"
        )
        selects.append(f"SELECT '{name}' AS src, * FROM {name}")
    with env.execute_sql(" UNION ALL ".join(selects)).collect() as results:
        for row in results:
            fields = list(row)
            print(json.dumps([fields[0], str(row.get_row_kind()), fields[1:]]), flush=True)


if __name__ == "__main__":
    main()
