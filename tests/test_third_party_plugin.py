"""A protocol published by a third party: its own package and entry point, built
outside this repository, installed by pip and selected by URI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

PLUGIN_PYPROJECT = """
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "cdcwire-reverse-json"
version = "0.3.1"
dependencies = ["cdcwire"]

[project.entry-points.cdcwire]
reverse-json = "cdcwire_reverse_json.plugin"

[tool.setuptools.packages.find]
where = ["src"]
"""

PLUGIN_MODULE = '''
"""A toy protocol: canonical event JSON, bytes reversed. One event per message."""
from cdcwire.plugin_api import Codec, DecodeError, Parameter, Payload, SinkURIError, from_json, hookimpl, to_json

cdcwire_plugin_api = "1.0"


class ReverseEncoder:
    def encode(self, events):
        for e in events:
            yield Payload(b"", to_json(e).encode()[::-1])


class ReverseDecoder:
    def decode(self, message):
        try:
            return [from_json((message.value or b"")[::-1].decode())]
        except Exception as exc:
            raise DecodeError(f"not reverse-json: {exc}", 0, "value") from None


class ReverseJSON(Codec):
    name = "reverse-json"
    parameters = (Parameter("reverse-mode", "choice", None, "required: how to reverse", choices=("bytes",)),)

    def validate(self, config):
        if config["reverse-mode"] is None:
            raise SinkURIError("protocol reverse-json needs parameter 'reverse-mode'", "reverse-mode")

    def demo_parameters(self, services):
        services.callback(print, "the demo services of reverse-json are closed")
        return {"reverse-mode": "bytes"}

    def encoder(self, config, topic, partition):
        return ReverseEncoder()

    def decoder(self, config):
        return ReverseDecoder()


@hookimpl
def register_codecs(register):
    register(ReverseJSON())
'''

CONFORMANCE_TEST = '''
from cdcwire.testing.conformance import CodecConformance


class TestReverseJSON(CodecConformance):
    sink_uri = "file:///tmp/cdcwire-reverse/t?protocol=reverse-json&reverse-mode=bytes"
'''


def pip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True)


@dataclass(frozen=True)
class InstalledPlugin:
    """The plugin's source tree, and the environment under which Python finds it installed."""

    root: Path
    env: dict


@pytest.fixture(scope="module")
def installed_plugin(tmp_path_factory) -> InstalledPlugin:
    """``cdcwire-reverse-json`` built and installed by pip into a directory that the commands below
    put on PYTHONPATH (as a user's environment puts its site-packages): entry points are found the
    same way, and the shared environment, used meanwhile by the rest of the suite, never sees it."""
    base = tmp_path_factory.mktemp("outside-the-repo")
    root = base / "cdcwire-reverse-json"
    (root / "src" / "cdcwire_reverse_json").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PLUGIN_PYPROJECT)
    (root / "src" / "cdcwire_reverse_json" / "__init__.py").write_text("")
    (root / "src" / "cdcwire_reverse_json" / "plugin.py").write_text(textwrap.dedent(PLUGIN_MODULE))
    (root / "tests").mkdir()
    (root / "tests" / "test_reverse_conformance.py").write_text(CONFORMANCE_TEST)
    done = pip("install", "-q", "--no-deps", "--no-build-isolation", "--target", str(base / "site"), str(root))
    assert done.returncode == 0, done.stderr
    return InstalledPlugin(root, {"PYTHONPATH": os.pathsep.join([str(base / "site"), os.environ.get("PYTHONPATH", "")])})


def run_python(code: str, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env={**os.environ, **env}
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_installed_plugin_is_listed_with_its_distribution(installed_plugin):
    out = run_python("from cdcwire.cli import main; main(['protocols'])", **installed_plugin.env)
    row = next(line.split() for line in out.splitlines() if line.startswith("reverse-json"))
    assert row == ["reverse-json", "cdcwire-reverse-json", "0.3.1"]


def test_the_plugin_is_selected_by_sink_uri(installed_plugin, tmp_path):
    out = run_python(
        f"""
        import json, cdcwire
        from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
        uri = "file://{tmp_path}/orders?protocol=reverse-json&reverse-mode=bytes&partition-num=1"
        ev = [RowChangedEvent(7, "shop", "orders", (Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY, 1),))]
        msgs = cdcwire.encode(uri, ev)
        print(json.dumps([msgs[0].value.decode(), cdcwire.decode(uri, msgs) == ev]))
        """,
        **installed_plugin.env,
    )
    value, equal = json.loads(out)
    assert value.startswith("}") and value.endswith("{") and equal


def test_the_allow_list_keeps_the_plugin_out(installed_plugin):
    out = run_python("import cdcwire; print(cdcwire.protocols())", CDCWIRE_PLUGINS="open-protocol", **installed_plugin.env)
    assert "reverse-json" not in out


def test_the_plugin_passes_the_shipped_conformance_suite(installed_plugin):
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(installed_plugin.root / "tests")],
        capture_output=True, text=True, cwd=installed_plugin.root, env={**os.environ, **installed_plugin.env},
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout


@pytest.mark.long_because("cdcwire demo in a fresh process, its Spark session with it, with the third-party plugin installed")
def test_cdcwire_demo_runs_the_plugin_with_the_parameters_its_codec_asks_for(installed_plugin, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "cdcwire", "demo", "--events", "300", "--out", str(tmp_path), "--master", "local[1]",
         "--protocols", "reverse-json"],
        capture_output=True, text=True, env={**os.environ, **installed_plugin.env, "CDCWIRE_PLUGINS": "reverse-json"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    row = next(line for line in done.stdout.splitlines() if line.startswith("reverse-json"))
    assert "equal (" in row and "MISMATCH" not in done.stdout
    assert "the demo services of reverse-json are closed" in done.stdout
    assert not any(line.startswith(("canal-json", "open-protocol", "craft")) for line in done.stdout.splitlines())


# -- a plugin that cannot load is left out, not allowed to stop every command ----------------

STALE_PYPROJECT = """
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "cdcwire-{name}"
version = "0.1"

[project.entry-points.cdcwire]
{name} = "cdcwire_{module}.plugin"

[tool.setuptools.packages.find]
where = ["src"]
"""

#: Written before the plugin API declaration: no ``cdcwire_plugin_api``.
STALE_MODULE = '''
from cdcwire.plugin_api import hookimpl


@hookimpl
def register_codecs(register):
    pass
'''

#: Imports what its environment does not have.
BROKEN_MODULE = '''
import cdcwire_no_such_dependency
'''


def build_plugin(root, name: str, module_text: str) -> None:
    module = name.replace("-", "_")
    src = root / name / "src" / f"cdcwire_{module}"
    src.mkdir(parents=True)
    (root / name / "pyproject.toml").write_text(STALE_PYPROJECT.format(name=name, module=module))
    (src / "__init__.py").write_text("")
    (src / "plugin.py").write_text(textwrap.dedent(module_text))


@pytest.fixture(scope="module")
def unloadable_plugins(tmp_path_factory):
    """``cdcwire-stale-json`` (no plugin API declaration) and ``cdcwire-broken-json`` (an import
    error), installed into a directory of their own that the commands below put on PYTHONPATH:
    the shared environment never sees them."""
    root = tmp_path_factory.mktemp("unloadable-plugins")
    target = root / "site"
    build_plugin(root, "stale-json", STALE_MODULE)
    build_plugin(root, "broken-json", BROKEN_MODULE)
    done = pip("install", "-q", "--no-deps", "--no-build-isolation", "--target", str(target),
               str(root / "stale-json"), str(root / "broken-json"))
    assert done.returncode == 0, done.stderr
    return {"PYTHONPATH": os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")])}


def cdcwire_cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cdcwire", *args], capture_output=True, text=True, env={**os.environ, **env}
    )


def test_a_plugin_without_a_plugin_api_declaration_leaves_the_other_protocols_working(unloadable_plugins):
    done = cdcwire_cli("protocols", **unloadable_plugins)
    assert done.returncode == 0, done.stderr
    assert "canal-json" in done.stdout and "stale-json" not in done.stdout


def test_each_plugin_left_out_is_warned_about_once_naming_its_distribution_and_why(unloadable_plugins):
    code = """
        import cdcwire
        from cdcwire.sinks.installed import get_registry, reset_registry
        get_registry(); reset_registry(); print(cdcwire.protocols())
        """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
        env={**os.environ, **unloadable_plugins},
    )
    assert done.returncode == 0, done.stderr
    assert "canal-json" in done.stdout
    warnings = done.stderr.splitlines()
    assert len(warnings) == 2, warnings
    assert "cdcwire left a plugin out: plugin 'broken-json' from cdcwire-broken-json 0.1 failed to load:" in warnings[0]
    assert "cdcwire left a plugin out: plugin 'stale-json' from cdcwire-stale-json 0.1 does not say" in warnings[1]


def test_cdcwire_plugins_lists_a_plugin_left_out_as_refused_with_why(unloadable_plugins):
    done = cdcwire_cli("plugins", **unloadable_plugins)
    assert done.returncode == 0, done.stderr
    rows = {line.split(" ")[0]: line for line in done.stdout.splitlines()}
    assert rows["cdcwire-stale-json"].startswith(
        "cdcwire-stale-json 0.1 (stale-json): refused: plugin 'stale-json' from cdcwire-stale-json 0.1"
        " does not say which cdcwire plugin API it was written for"
    )
    assert rows["cdcwire-broken-json"].startswith("cdcwire-broken-json 0.1 (broken-json): refused: plugin")
    assert "No module named 'cdcwire_no_such_dependency'" in rows["cdcwire-broken-json"]
    assert rows["cdcwire-canal-json"].endswith(": canal-json")


def test_asking_for_the_protocol_of_a_plugin_left_out_raises_its_refusal(unloadable_plugins):
    done = cdcwire_cli("inspect", "file:///nowhere/t?protocol=stale-json", **unloadable_plugins)
    assert done.returncode != 0
    assert "does not say which cdcwire plugin API it was written for" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unknown_protocol_names_the_plugins_left_out(unloadable_plugins):
    done = cdcwire_cli("inspect", "file:///nowhere/t?protocol=nonesuch", **unloadable_plugins)
    assert done.returncode != 0
    assert "unknown protocol 'nonesuch'" in done.stderr
    assert "plugins left out (see `cdcwire plugins`): cdcwire-broken-json 0.1, cdcwire-stale-json 0.1" in done.stderr


def test_the_allow_list_still_chooses_among_the_loadable_plugins(unloadable_plugins):
    done = cdcwire_cli("plugins", CDCWIRE_PLUGINS="canal-json", **unloadable_plugins)
    assert done.returncode == 0 and done.stderr == ""
    assert "stale-json" not in done.stdout and "cdcwire-canal-json" in done.stdout
