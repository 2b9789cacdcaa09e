"""The Kafka client side of ``kafka://``, by its first name: imports keep working from here.

The client lives in modules with one idea each; only they import confluent-kafka,
so ``kafka://`` URIs parse without it:

* :mod:`.kafka_settings`: a URI as librdkafka settings, and error texts without secrets;
* :mod:`.kafka_topics`: partition counts and topic creation (:func:`ensure_topic`);
* :mod:`.kafka_writer`: :class:`KafkaWriter`, which loses nothing;
* :mod:`.kafka_reader`: :class:`KafkaReader`, bounded reads.
"""

from __future__ import annotations

from .kafka_reader import KafkaReader
from .kafka_settings import ClientErrors, KafkaSettings
from .kafka_topics import TopicAdmin, ensure_topic, topic_partition_count
from .kafka_writer import DeliveryFailure, KafkaWriter

__all__ = [
    "ClientErrors",
    "DeliveryFailure",
    "KafkaReader",
    "KafkaSettings",
    "KafkaWriter",
    "TopicAdmin",
    "ensure_topic",
    "topic_partition_count",
]
