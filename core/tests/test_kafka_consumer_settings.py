"""``consumer-settings`` of kafka://: librdkafka settings a reader's consumer adds (the Spark
source's ``kafka.*`` options), checked when the URI is parsed (no broker needed)."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from cdcwire import SinkURIError, parse_sink_uri

BASE = "kafka://127.0.0.1:9092/orders?protocol=echo-json"


def uri_with(settings: object) -> str:
    return f"{BASE}&consumer-settings={quote(json.dumps(settings), safe='')}"


def test_consumer_settings_become_the_reader_consumer_settings():
    pytest.importorskip("confluent_kafka", reason="the cdcwire[kafka] extra is not installed")
    from cdcwire.transports.kafka.settings import KafkaSettings

    settings = KafkaSettings.of(parse_sink_uri(uri_with({"fetch.max.bytes": 1048576, "check.crcs": True})))
    assert settings.consumer == {"fetch.max.bytes": "1048576", "check.crcs": "true"}


@pytest.mark.parametrize(
    "settings, words",
    [
        ({"group.id": "g"}, "'group.id' is cdcwire's to set: use cdcwire follow --group"),
        ({"ssl.key.password": "pw"}, "'ssl.key.password' is cdcwire's to set: use the URI's TLS and SASL parameters"),
        (["fetch.max.bytes"], "must be a JSON object of librdkafka consumer settings"),
        ({"fetch.max.bytes": [1]}, "'fetch.max.bytes': [1] is not a setting value"),
    ],
)
def test_a_consumer_setting_cdcwire_cannot_take_is_refused_naming_it(settings, words):
    with pytest.raises(SinkURIError, match=words.replace(".", r"\.").replace("[", r"\[").replace("]", r"\]")) as info:
        parse_sink_uri(uri_with(settings))
    assert info.value.parameter == "consumer-settings"
