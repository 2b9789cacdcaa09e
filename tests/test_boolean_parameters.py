"""Every boolean sink-URI parameter, of the core, the transports and every installed protocol
plugin, follows the core's one rule: true/false in any case, or 1/0, and nothing else."""

from __future__ import annotations

import pytest

from cdcwire import SinkURIError
from cdcwire.sinks.installed import get_registry

BOOLEANS = sorted(
    {(codec.name, p.name) for codec, _ in get_registry().codecs() for p in codec.parameters if p.kind == "bool"}
)


def test_the_protocols_declare_boolean_parameters():
    assert ("canal-json", "enable-tidb-extension") in BOOLEANS
    assert ("open-protocol", "enable-old-value") in BOOLEANS


@pytest.mark.parametrize("protocol, name", BOOLEANS)
def test_a_protocols_boolean_parameter_takes_the_core_rule(protocol, name):
    parameter = next(p for c, _ in get_registry().codecs() if c.name == protocol for p in c.parameters if p.name == name)
    assert [parameter.parse(text) for text in ("TRUE", "1", "False", "0")] == [True, True, False, False]
    with pytest.raises(SinkURIError) as info:
        parameter.parse("yes")
    assert str(info.value) == f"parameter {name!r} must be true or false (any case), or 1 or 0, got 'yes'"


def test_enable_tidb_extension_yes_is_refused_in_a_uri():
    from cdcwire import parse_sink_uri

    with pytest.raises(SinkURIError, match="'enable-tidb-extension' must be true or false \\(any case\\), or 1 or 0"):
        parse_sink_uri("file:///tmp/o/t?protocol=canal-json&enable-tidb-extension=yes")
