"""The README documents what the code declares: its parameter table is the one
``cdcwire parameters --markdown`` prints for the core and the four protocols."""

from __future__ import annotations

import re
from pathlib import Path

from cdcwire.parameter_table import markdown_table, parameter_rows

README = Path(__file__).resolve().parents[1] / "README.md"
OUR_DISTRIBUTIONS = {"cdcwire", "cdcwire-open", "cdcwire-craft", "cdcwire-canal-json", "cdcwire-avro"}


def readme_block(name: str) -> str:
    match = re.search(rf"<!-- {name}:start -->\n(.*?)\n<!-- {name}:end -->", README.read_text(), re.S)
    assert match, f"README.md has no <!-- {name}:start --> ... <!-- {name}:end --> block"
    return match.group(1)


def test_the_readme_parameter_table_is_the_one_the_code_declares():
    assert readme_block("parameters") == markdown_table(parameter_rows(distributions=OUR_DISTRIBUTIONS))


def test_every_declared_parameter_has_a_meaning():
    for row in parameter_rows():
        assert row.parameter.help.strip(), f"parameter {row.parameter.name!r} has no help text"
