from __future__ import annotations

import pytest
from echo_codec import EchoJSONCodec

import cdcwire
from cdcwire.foundation.errors import PluginError, SinkURIError
from cdcwire.plugin_api import PLUGIN_API_VERSION
from cdcwire.contract.registry import PluginInfo, Registry


class OtherEcho(EchoJSONCodec):
    name = "other"
    aliases = ("echo",)


class OtherPlugin:
    cdcwire_plugin_api = "1.0"

    @cdcwire.hookimpl
    def register_codecs(self, register):
        register(OtherEcho())


def test_a_protocol_name_registered_twice_names_both_distributions(echo_registry):
    with pytest.raises(PluginError, match="'echo' is registered twice: by cdcwire-echo-test 1.0 and by cdcwire-other 2.0"):
        echo_registry.add_plugin(OtherPlugin(), PluginInfo("other", "cdcwire-other", "2.0"))


def test_a_hookimpl_that_matches_no_spec_is_rejected():
    class Typo:
        cdcwire_plugin_api = "1.0"

        @cdcwire.hookimpl
        def register_codec(self, register):  # missing "s"
            pass

    with pytest.raises(Exception, match="register_codec"):
        Registry().add_plugin(Typo(), PluginInfo("typo", "cdcwire-typo", "0"))


def test_a_plugin_must_register_a_codec_instance():
    class Wrong:
        cdcwire_plugin_api = "1.0"

        @cdcwire.hookimpl
        def register_codecs(self, register):
            register("not a codec")

    with pytest.raises(PluginError, match="cdcwire-wrong registered 'not a codec'"):
        Registry().add_plugin(Wrong(), PluginInfo("wrong", "cdcwire-wrong", "0"))


def plugin_written_for(version):
    class Plugin:
        @cdcwire.hookimpl
        def register_codecs(self, register):
            register(OtherEcho())

    if version is not None:
        Plugin.cdcwire_plugin_api = version
    return Plugin()


def test_a_plugin_that_declares_no_plugin_api_version_is_refused_naming_its_distribution():
    with pytest.raises(PluginError, match="from cdcwire-other 2.0 does not say which cdcwire plugin API"):
        Registry().add_plugin(plugin_written_for(None), PluginInfo("other", "cdcwire-other", "2.0"))


@pytest.mark.parametrize("version", ["0.9", "2.0", "1.99", "one"])
def test_a_plugin_written_for_another_plugin_api_is_refused(version):
    with pytest.raises(PluginError, match=f"cdcwire-other 2.0 .*{version}"):
        Registry().add_plugin(plugin_written_for(version), PluginInfo("other", "cdcwire-other", "2.0"))


@pytest.mark.parametrize("version", ["1", "1.0", PLUGIN_API_VERSION])
def test_a_plugin_written_for_this_or_an_older_minor_version_loads(version):
    registry = Registry()
    registry.add_plugin(plugin_written_for(version), PluginInfo("other", "cdcwire-other", "2.0"))
    assert registry.codec("other").name == "other"


def test_protocol_lookup_is_case_insensitive_and_knows_aliases(echo_registry):
    assert echo_registry.codec("ECHO").name == "echo-json"
    assert echo_registry.codec_info("echo").distribution == "cdcwire-echo-test"


def test_unknown_protocol_lists_installed_ones(echo_registry):
    with pytest.raises(SinkURIError, match="installed protocols: echo-json"):
        echo_registry.codec("avro")


def test_every_hook_spec_is_documented():
    from cdcwire.contract import hookspecs

    specs = [f for name, f in vars(hookspecs).items() if name.startswith("register_")]
    assert specs, "no hook specs found"
    for spec in specs:
        assert spec.__doc__ and len(spec.__doc__.split()) > 10, f"{spec.__name__} needs a docstring"


def test_entry_point_plugins_can_be_restricted_by_environment(monkeypatch):
    from cdcwire.sinks.installed import build_registry

    monkeypatch.setenv("CDCWIRE_PLUGINS", "no-such-plugin")
    reg = build_registry()
    assert reg.protocol_names() == []
    assert [t.scheme for t, _ in reg.transports()] == ["file", "kafka"]  # built-ins always load


def test_a_plugin_whose_hook_fails_registers_nothing():
    class HalfDone:
        cdcwire_plugin_api = "1.0"

        @cdcwire.hookimpl
        def register_codecs(self, register):
            register(OtherEcho())
            raise RuntimeError("the second codec needs a library that is missing")

    registry = Registry()
    with pytest.raises(RuntimeError, match="missing"):
        registry.add_plugin(HalfDone(), PluginInfo("half", "cdcwire-half", "0"))
    assert registry.protocol_names() == [] and registry.plugins == []
    registry.add_plugin(plugin_written_for("1.0"), PluginInfo("other", "cdcwire-other", "2.0"))
    assert registry.protocol_names() == ["other"]  # the failed plugin's hooks are not called again


def test_the_protocol_of_a_plugin_left_out_raises_its_refusal(echo_registry):
    echo_registry.refuse(PluginInfo("old-json", "cdcwire-old-json", "0.1"), "plugin 'old-json' is too old", ("old-json",))
    with pytest.raises(PluginError, match="^plugin 'old-json' is too old$"):
        echo_registry.codec("Old-JSON")
    assert echo_registry.codec("echo").name == "echo-json"


def test_a_transport_of_a_plugin_left_out_raises_its_refusal(echo_registry):
    echo_registry.refuse(PluginInfo("s3", "cdcwire-s3", "0.1"), "plugin 's3' failed to load", ("s3",))
    with pytest.raises(PluginError, match="plugin 's3' failed to load"):
        echo_registry.transport("s3")


def test_an_unknown_protocol_also_names_the_plugins_left_out(echo_registry):
    echo_registry.refuse(PluginInfo("old", "cdcwire-old-json", "0.1"), "too old", ("old",))
    with pytest.raises(SinkURIError, match=r"installed protocols: echo-json; plugins left out \(see `cdcwire plugins`\): cdcwire-old-json 0.1$"):
        echo_registry.codec("avro")
