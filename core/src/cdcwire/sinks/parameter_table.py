"""Every sink-URI parameter the installed core, transports and codecs declare, as one table.

The parameter table of docs/sink-uris.md is this table printed by ``cdcwire parameters --markdown``;
a test keeps the two equal, so the documentation cannot drift from the parsers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..foundation.params import SHARED_PARAMETERS, Parameter
from .installed import get_registry
from ..contract.registry import Registry


@dataclass(frozen=True, slots=True)
class ParameterRow:
    """One parameter and where it applies: ``all sinks``, ``kafka://`` or protocol names."""

    parameter: Parameter
    applies_to: tuple[str, ...]

    @property
    def default_text(self) -> str:
        p = self.parameter
        if p.name == "protocol":
            return "required"
        if p.default is None:
            return "none"
        if isinstance(p.default, bool):
            return "true" if p.default else "false"
        return str(p.default)

    @property
    def kind_text(self) -> str:
        p = self.parameter
        if p.kind == "choice":
            return " / ".join(p.choices)
        if p.kind == "int" and p.minimum is not None:
            return f"int >= {p.minimum}"
        return p.kind


def parameter_rows(registry: Optional[Registry] = None, distributions: Optional[set[str]] = None) -> list[ParameterRow]:
    """The shared parameters first, then each transport's, then each codec's (a parameter
    several codecs declare is one row naming them all). ``distributions`` keeps only
    what those distributions registered."""
    reg = registry or get_registry()
    order: list[str] = []
    found: dict[str, tuple[Parameter, list[str]]] = {}

    def add(p: Parameter, where: str) -> None:
        if p.name not in found:
            order.append(p.name)
            found[p.name] = (p, [])
        known, places = found[p.name]
        if p.kind == "choice" and p.choices != known.choices:  # codecs extend a shared choice
            found[p.name] = (known.supporting(*p.choices), places)
        if where not in places:
            places.append(where)

    for p in SHARED_PARAMETERS:
        add(p, "all sinks")
    for transport, info in reg.transports():
        if distributions is None or info.distribution in distributions:
            for p in transport.parameters:
                add(p, f"{transport.scheme}://")
    for codec, info in reg.codecs():
        if distributions is None or info.distribution in distributions:
            for p in codec.parameters:
                add(p, codec.name)
    return [ParameterRow(found[name][0], tuple(found[name][1])) for name in order]


def markdown_table(rows: list[ParameterRow]) -> str:
    """The rows as a Markdown table (docs/sink-uris.md's)."""
    lines = ["| parameter | applies to | values | default | meaning |", "| --- | --- | --- | --- | --- |"]
    for row in rows:
        p = row.parameter
        meaning = p.help + (" (secret: never printed)" if p.secret else "")
        lines.append(
            f"| `{p.name}` | {', '.join(row.applies_to)} | {row.kind_text} | {row.default_text} | {meaning} |"
        )
    return "\n".join(lines)


def plain_table(rows: list[ParameterRow]) -> str:
    """The rows aligned for a terminal."""
    cells = [("parameter", "applies to", "values", "default", "meaning")]
    cells += [(r.parameter.name, ", ".join(r.applies_to), r.kind_text, r.default_text, r.parameter.help) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(4)]
    return "\n".join(
        "  ".join(v.ljust(w) for v, w in zip(c[:4], widths)) + "  " + c[4] for c in cells
    )
