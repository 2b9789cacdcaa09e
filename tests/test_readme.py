"""The README and the pages under docs/ document what the code declares: the parameter table is
the one ``cdcwire parameters --markdown`` prints for the core and the six protocols, and every
example runs. An example is a block between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``
(each NAME once across README.md and docs/*.md); ``#> `` lines show what it prints."""

from __future__ import annotations

import re
from pathlib import Path

from cdcwire.sinks.parameter_table import markdown_table, parameter_rows

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
OUR_DISTRIBUTIONS = {"cdcwire", "cdcwire-open", "cdcwire-craft", "cdcwire-canal-json", "cdcwire-avro", "cdcwire-debezium",
                     "cdcwire-simple"}


def readme_block(name: str) -> str:
    """The example block NAME, wherever it is (README.md or a page of docs/)."""
    found = [
        match.group(1)
        for page in PAGES
        for match in re.finditer(rf"<!-- {name}:start -->\n(.*?)\n<!-- {name}:end -->", page.read_text(), re.S)
    ]
    assert len(found) == 1, f"<!-- {name}:start --> ... <!-- {name}:end --> is in {len(found)} places, not 1"
    return found[0]


def test_the_readme_parameter_table_is_the_one_the_code_declares():
    assert readme_block("parameters") == markdown_table(parameter_rows(distributions=OUR_DISTRIBUTIONS))


def test_every_declared_parameter_has_a_meaning():
    for row in parameter_rows():
        assert row.parameter.help.strip(), f"parameter {row.parameter.name!r} has no help text"


def test_the_readme_plugin_example_loads_as_a_plugin():
    """The plugin guide's module, run as the entry-point module it shows, registers its codec."""
    import types

    from cdcwire.contract.registry import PluginInfo, Registry

    code = re.search(r"```python\n(.*?)```", readme_block("plugin-example"), re.S).group(1)
    module = types.ModuleType("cdcwire_myproto.plugin")
    exec(compile(code, "README.md plugin example", "exec"), module.__dict__)
    registry = Registry()
    registry.add_plugin(module, PluginInfo("myproto", "cdcwire-myproto", "0.1.0"))
    codec = registry.codec("myproto")
    assert [p.name for p in codec.parameters] == ["max-batch-size", "my-flag"]
    assert codec.demo_parameters(None) == {"my-flag": "true"}


def test_the_readme_names_the_current_format_versions():
    from cdcwire.model.event_json import EVENT_JSON_VERSION
    from cdcwire.spark.rows.schema import EVENT_SCHEMA_VERSION

    text = (ROOT / "docs" / "event-json.md").read_text()
    assert f"| event JSON | {EVENT_JSON_VERSION} |" in text
    assert f"| event DataFrame | {EVENT_SCHEMA_VERSION} |" in text


def test_the_readme_use_example_runs_and_prints_what_it_shows(tmp_path, capsys):
    code = re.search(r"```python\n(.*?)```", readme_block("use-example"), re.S).group(1)
    shown = [line[3:] for line in code.splitlines() if line.startswith("#> ")]
    exec(compile(code.replace("/tmp/cdcwire-readme", str(tmp_path)), "README.md use example", "exec"), {})
    assert capsys.readouterr().out.splitlines() == shown


def test_the_readme_spark_example_runs_and_prints_what_it_shows(spark, tmp_path, capsys):
    code = re.search(r"```python\n(.*?)```", readme_block("spark-example"), re.S).group(1)
    shown = [line[3:] for line in code.splitlines() if line.startswith("#> ")]
    _readme_python("spark-example", tmp_path)
    assert capsys.readouterr().out.splitlines() == shown


def test_the_spark_data_source_example_runs(spark, tmp_path):
    names = _readme_python("spark-data-source-example", tmp_path)
    assert names["summary"].reconciles and names["summary"].events_in == 300
    rows = "kind IN ('insert', 'update', 'delete')"  # key-changing updates come back split in two
    assert names["back"].where(rows).count() >= names["df"].where(rows).count() > 0
    assert names["again"].count() == names["back"].count()


def test_the_readme_event_json_example_reads_as_json_lines():
    import io

    import cdcwire

    text = re.search(r"```json\n(.*?)```", readme_block("event-json-example"), re.S).group(1)
    events = list(cdcwire.read_jsonl(io.StringIO(text)))
    assert [type(e).__name__ for e in events] == ["RowChangedEvent", "DDLEvent", "ResolvedEvent"]


def test_the_readme_large_message_example_runs_and_prints_what_it_shows(tmp_path, capsys):
    code = re.search(r"```python\n(.*?)```", readme_block("large-message-example"), re.S).group(1)
    shown = [line[3:] for line in code.splitlines() if line.startswith("#> ")]
    exec(compile(code.replace("/tmp/cdcwire-readme", str(tmp_path)), "README.md large-message example", "exec"), {})
    assert capsys.readouterr().out.splitlines() == shown
    assert len(list((tmp_path / "claims").glob("*.json"))) == 1


def _readme_python(name: str, tmp_path) -> dict:
    code = re.search(r"```python\n(.*?)```", readme_block(name), re.S).group(1)
    names: dict = {}
    exec(compile(code.replace("/tmp/cdcwire-readme", str(tmp_path)), f"README.md {name}", "exec"), names)
    return names


def test_the_readme_streaming_source_example_runs(spark, tmp_path):
    names = _readme_python("stream-example", tmp_path)
    written = names["spark"].read.parquet(str(tmp_path / "stream" / "out")).count()
    assert written == names["cs"].read(names["spark"], names["uri"]).where("kind != 'resolved'").count() > 0


def test_the_readme_streaming_sink_example_runs(spark, tmp_path):
    import cdcwire

    names = _readme_python("stream-sink-example", tmp_path)
    rows = lambda uri: [e for e in cdcwire.decode(uri, cdcwire.read(uri)) if isinstance(e, cdcwire.RowChangedEvent)]
    assert len(rows(names["sink"])) == len(rows(names["source"])) > 0


def test_the_readme_follow_example_runs_and_prints_what_it_shows(tmp_path, capsys):
    code = re.search(r"```python\n(.*?)```", readme_block("follow-example"), re.S).group(1)
    shown = [line[3:] for line in code.splitlines() if line.startswith("#> ")]
    _readme_python("follow-example", tmp_path)
    assert capsys.readouterr().out.splitlines() == shown


def test_the_readme_materialize_example_runs_and_prints_what_it_shows(spark, tmp_path, capsys):
    code = re.search(r"```python\n(.*?)```", readme_block("materialize-example"), re.S).group(1)
    shown = [line[3:] for line in code.splitlines() if line.startswith("#> ")]
    names = _readme_python("materialize-example", tmp_path)
    assert capsys.readouterr().out.splitlines() == shown
    assert names["summary"].complete and (tmp_path / "tables" / "_cdcwire_state.json").exists()


def test_the_carried_error_example_raises_the_typed_decode_error(spark, tmp_path):
    import pytest

    import cdcwire

    with pytest.raises(cdcwire.DecodeError) as raised:
        _readme_python("carried-error-example", tmp_path)
    assert str(raised.value).startswith("orders/0/41")


def test_the_conformance_example_is_a_test_class_of_the_kit():
    from cdcwire.testing.conformance import CodecConformance

    code = re.search(r"```python\n(.*?)```", readme_block("conformance-example"), re.S).group(1)
    names: dict = {}
    exec(compile(code, "docs/plugins.md conformance example", "exec"), names)
    kit = names["TestMyProto"]
    assert issubclass(kit, CodecConformance) and kit.sink_uri.endswith("protocol=myproto")
    assert [name for name in dir(kit) if name.startswith("test_")]


FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
NAMED = re.compile(r"<!-- ([\w-]+):start -->\n(.*?)\n<!-- \1:end -->", re.S)


def _blocks(language: str) -> list[tuple[str, str]]:
    """(page, code) of every fenced block of a language in README.md and docs/*.md."""
    return [
        (page.relative_to(ROOT).as_posix(), match.group(2))
        for page in PAGES
        for match in FENCE.finditer(page.read_text())
        if match.group(1) == language
    ]


def test_every_python_block_is_a_named_example_a_test_runs():
    """A Python example outside a named block, or a name no test reads, would never run."""
    tests = Path(__file__).read_text() + (ROOT / "tests" / "test_install.py").read_text()
    for page in PAGES:
        text = page.read_text()
        named = list(NAMED.finditer(text))
        for block in FENCE.finditer(text):
            if block.group(1) == "python":
                assert any(n.start() < block.start() < n.end() for n in named), (
                    f"{page.relative_to(ROOT)}: a python block outside <!-- NAME:start/end --> markers: "
                    f"{block.group(2)[:60]!r}"
                )
        for n in named:
            assert f'"{n.group(1)}"' in tests or f"{n.group(1)}:start" in tests, f"{page.relative_to(ROOT)}: example {n.group(1)!r} is run by no test"


def test_every_toml_block_is_toml_and_every_rules_file_opens_a_sink(tmp_path):
    import tomllib

    import cdcwire

    blocks = _blocks("toml")
    assert blocks
    for page, text in blocks:
        parsed = tomllib.loads(text)
        if "dispatchers" in parsed or "column-selectors" in parsed:
            rules = tmp_path / "rules.toml"
            rules.write_text(text)
            sink = cdcwire.open_sink(f"file://{tmp_path}/t?protocol=open-protocol&dispatch-rules={rules}")
            assert sink.config.topic == "t", page


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The text outside fenced blocks and inline code, where a link is a link."""
    return re.sub(r"`[^`\n]*`", "", FENCE.sub("", text))


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#{1,6} (.+)$", FENCE.sub("", page.read_text()), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_every_relative_link_and_anchor_between_the_pages_resolves():
    links = 0
    for page in PAGES:
        for target in LINK.findall(_prose(page.read_text())):
            if re.match(r"[a-z]+:", target):
                continue
            links += 1
            path, _, anchor = target.partition("#")
            where = (page.parent / path).resolve() if path else page
            assert where.exists(), f"{page.relative_to(ROOT)}: link {target!r}: no file {path!r}"
            if anchor:
                assert anchor in _anchors(where), f"{page.relative_to(ROOT)}: link {target!r}: no heading #{anchor}"
    assert links > 20


def test_every_docs_page_is_in_the_index():
    index = (ROOT / "docs" / "README.md").read_text()
    for page in PAGES[1:]:
        if page.name != "README.md":
            assert f"({page.name})" in index, f"docs/README.md does not link {page.name}"


def _core_extras() -> dict[str, list[str]]:
    import tomllib

    project = tomllib.loads((ROOT / "core" / "pyproject.toml").read_text())["project"]
    return {name: deps for name, deps in project["optional-dependencies"].items() if name != "testing"}


def test_the_readme_everything_install_line_names_every_extra_of_the_core():
    everything = next(line for line in readme_block("install-example").splitlines() if "everything" in line)
    named = set(re.search(r"\./core\[([^\]]*)\]", everything).group(1).split(","))
    assert named == set(_core_extras()), f"the everything line installs {sorted(named)}, the core has {sorted(_core_extras())}"


def test_the_readme_install_table_gives_the_pyspark_version_the_core_requires():
    pyspark = next(dep for dep in _core_extras()["spark"] if dep.startswith("pyspark"))
    version = pyspark.removeprefix("pyspark>=")
    assert f"pyspark ≥ {version}," in README.read_text()
    for extra in _core_extras():
        assert f"`{extra}` (" in README.read_text(), f"the install table does not name the extra {extra!r}"


def test_the_storage_read_example_runs_and_prints_what_it_shows(tmp_path, capsys):
    from storage_layout import Layout

    from cdcwire.transports.storage.schema_files import TableCol

    layout = Layout(tmp_path / "storage")
    layout.schema("app", "users", 100, [TableCol("id", "INT", "11", is_pk="true"), TableCol("name", "VARCHAR", "20")],
                  "CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(20))", 3)
    layout.data("app/users/100", 1, ['"I","users","app",110,1,"ann"', '"I","users","app",120,2,"bob"'])
    layout.checkpoint(300)
    code = re.search(r"```python\n(.*?)```", readme_block("storage-read-example"), re.S).group(1)
    shown = [line[3:] for line in code.splitlines() if line.startswith("#> ")]
    _readme_python("storage-read-example", tmp_path)
    assert capsys.readouterr().out.splitlines() == shown


def test_the_storage_materialize_example_runs_and_prints_what_it_shows(spark, tmp_path, capsys):
    code = re.search(r"```python\n(.*?)```", readme_block("storage-materialize-example"), re.S).group(1)
    shown = [line[3:] for line in code.splitlines() if line.startswith("#> ")]
    names = _readme_python("storage-materialize-example", tmp_path)
    assert capsys.readouterr().out.splitlines() == shown
    assert names["summary"].release_ts == list(names["cdcwire"].read_storage(names["uri"]))[-1].ts


def test_the_local_kafka_example_starts_a_broker_writes_lists_and_follows_it(tmp_path):
    """docs/streaming.md's broker on a laptop, run as shown; only its port and paths are the test's own."""
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    script = (readme_block("local-kafka-example").split("```bash\n", 1)[1].rsplit("```", 1)[0]
              .replace("9092", port).replace("/tmp/cdcwire-kafka", str(tmp_path / "kafka"))
              .replace("/tmp/cdcwire-events.jsonl", str(tmp_path / "events.jsonl")))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    try:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, env=env,
                              timeout=180)
    finally:
        subprocess.run(["noida-db", "down", "--data-dir", str(tmp_path / "kafka")], capture_output=True, env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "topic 'orders' with 3 partition(s):" in out and "protocol canal-json" in out
    followed = [line for line in out.splitlines() if line.startswith('{"type":')]
    assert len(followed) == 3
    assert "noida-db stopped" in out


def test_every_timed_figure_in_the_docs_is_dated_where_it_is_shown():
    """A block of output with seconds in it (a demo run, a materialize summary) was measured on one
    day's code and machine: the lines around it say when (``measured ... YYYY-MM-DD``), so a
    reader can tell a stale figure from a promise."""
    undated = []
    for page in PAGES:
        lines = page.read_text().splitlines()
        fences = [i for i, line in enumerate(lines) if line.startswith("```")]
        for start, end in zip(fences[::2], fences[1::2]):
            block = "\n".join(lines[start + 1:end])
            if not re.search(r"\b\d+\.\d+s\b", block):
                continue
            around = " ".join(lines[max(0, start - 6):start] + lines[end + 1:end + 7])
            if not re.search(r"[Mm]easured\b[^.]*\b20\d\d-\d\d-\d\d", around):
                undated.append(f"{page.name}:{start + 1}")
    assert not undated, f"timed output without a 'measured ... date' beside it: {undated}"
