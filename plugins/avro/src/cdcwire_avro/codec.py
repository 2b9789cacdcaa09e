"""The avro codec: TiCDC's Confluent Avro protocol (``protocol=avro``).

One row change per message, one table per topic (TopicNameStrategy subjects
``{topic}-key`` / ``{topic}-value``), no DDL or resolved messages.
"""

from __future__ import annotations

import contextlib
from functools import partial
from typing import Mapping

from cdcwire.plugin_api import Broadcast, Carrier, Codec, EventPolicy, SinkConfig, SinkURIError

from .carried import carried
from .decoder import AvroDecoder
from .encoder import AvroEncoder
from .jvm_tier import JVM
from .options import PARAMETERS, AvroOptions
from .schema_registry_client import RegistryAddress

_MATCH_ALL = frozenset({"*.*", "*"})
_EXAMPLE = "topic-rule=tidb_{schema}_{table}"


class AvroCodec(Codec):
    """Confluent Avro with a Schema Registry; DDL and resolved events produce nothing."""

    name = "avro"
    parameters = PARAMETERS
    jvm = JVM  # its Java decoder (plugin API 1.10) and batch encoder (1.13)

    def validate(self, config: SinkConfig) -> None:
        url = config["schema-registry"]
        if not url:
            raise SinkURIError(
                "protocol avro needs parameter 'schema-registry': the URL of a Confluent Schema Registry",
                "schema-registry",
            )
        try:
            RegistryAddress.parse(url)
        except ValueError as exc:
            raise SinkURIError(f"parameter 'schema-registry': {exc}", "schema-registry") from None
        _check_one_table_per_topic(config)

    def policy(self, config: SinkConfig) -> EventPolicy:
        return EventPolicy(ddl=Broadcast.NONE, resolved=Broadcast.NONE)

    def encoder(self, config: SinkConfig, topic: str, partition: int) -> AvroEncoder:
        options = AvroOptions.from_config(config)
        return AvroEncoder(options, topic, config["max-message-bytes"], options.registry_client())

    def decoder(self, config: SinkConfig) -> AvroDecoder:
        return AvroDecoder(AvroOptions.from_config(config).registry_client())

    def carrier(self, config: SinkConfig) -> Carrier:
        return partial(carried, AvroOptions.from_config(config))


    def demo_parameters(self, services: contextlib.ExitStack) -> Mapping[str, str]:
        """A local Schema Registry for the demo's run, the extension on, one topic per table."""
        from .testing import LocalSchemaRegistry

        registry = services.enter_context(LocalSchemaRegistry())
        return {
            "schema-registry": registry.url,
            "enable-tidb-extension": "true",
            "topic-rule": "demo_{schema}_{table}",
        }


def _check_one_table_per_topic(config: SinkConfig) -> None:
    """Every reachable dispatch rule must name a topic with both {schema} and {table}.

    The URI's own rule comes last; rules after one matching every table are never used.
    """
    rules = config.dispatch_rules
    for position, rule in enumerate(rules):
        from_uri = position == len(rules) - 1
        parameter = "topic-rule" if from_uri else "dispatch-rules"
        if rule.topic is None:
            where = "the sink URI has no topic-rule" if from_uri else f"dispatch rule {list(rule.matchers)} has no topic"
            raise SinkURIError(
                f"protocol avro needs one table per topic, but {where}, so tables would share topic"
                f" {config.topic!r}; give a topic expression with {{schema}} and {{table}}, e.g. {_EXAMPLE}",
                parameter,
            )
        if not (rule.topic.has_schema and rule.topic.has_table):
            lacks = " and ".join(p for p, has in (("{schema}", rule.topic.has_schema),
                                                  ("{table}", rule.topic.has_table)) if not has)
            raise SinkURIError(
                f"protocol avro needs one table per topic: topic expression {rule.topic.text!r} lacks"
                f" {lacks}; use both {{schema}} and {{table}}, e.g. {_EXAMPLE}",
                parameter,
            )
        if _MATCH_ALL.intersection(rule.matchers):
            return
