"""The sink-URI parameters avro honours, read once into a typed options object."""

from __future__ import annotations

from dataclasses import dataclass, field

from cdcwire.plugin_api import ENABLE_TIDB_EXTENSION, Parameter, SinkConfig

from .schema_registry_client import DEFAULT_RETRY_SECONDS, SchemaRegistryClient

DECIMAL_HANDLING_MODE = Parameter(
    "avro-decimal-handling-mode", "choice", "precise",
    "DECIMAL as bytes with the decimal logical type (precise) or as text (string)",
    choices=("precise", "string"),
)
BIGINT_UNSIGNED_HANDLING_MODE = Parameter(
    "avro-bigint-unsigned-handling-mode", "choice", "long",
    "BIGINT UNSIGNED as long (wraps past 2^63-1) or as decimal text (string)",
    choices=("long", "string"),
)
SCHEMA_REGISTRY = Parameter(
    "schema-registry", "str", None,
    "base URL of a Confluent Schema Registry; https://user:pass@host allowed, URL-encoded",
    secret=True,
)
#: Not in TiCDC (its client retries a fixed number of times): a registry restart or
#: fail-over should not fail a long job, a registry that stays down should fail it.
SCHEMA_REGISTRY_RETRY_SECONDS = Parameter(
    "schema-registry-retry-seconds", "int", 30,
    "how long to keep retrying a schema registry that is unreachable or answers 5xx/429 before"
    " the job fails (0: one attempt)",
    minimum=0, maximum=86400,
)

PARAMETERS: tuple[Parameter, ...] = (
    ENABLE_TIDB_EXTENSION,
    DECIMAL_HANDLING_MODE,
    BIGINT_UNSIGNED_HANDLING_MODE,
    SCHEMA_REGISTRY,
    SCHEMA_REGISTRY_RETRY_SECONDS,
)

#: The first part of every record namespace: TiCDC uses the changefeed's namespace, "default".
DEFAULT_NAMESPACE = "default"


@dataclass(frozen=True, slots=True)
class AvroOptions:
    """What shapes the schemas and values. ``registry_url`` is secret: never in a repr."""

    tidb_extension: bool = False
    decimal_as_string: bool = False
    bigint_unsigned_as_string: bool = False
    namespace: str = DEFAULT_NAMESPACE
    registry_url: str = field(default="", repr=False, compare=False)
    registry_retry_seconds: float = field(default=DEFAULT_RETRY_SECONDS, compare=False)

    @classmethod
    def from_config(cls, config: SinkConfig) -> "AvroOptions":
        return cls(
            tidb_extension=bool(config["enable-tidb-extension"]),
            decimal_as_string=config["avro-decimal-handling-mode"] == "string",
            bigint_unsigned_as_string=config["avro-bigint-unsigned-handling-mode"] == "string",
            registry_url=config["schema-registry"] or "",
            registry_retry_seconds=float(config["schema-registry-retry-seconds"]),
        )

    def registry_client(self) -> SchemaRegistryClient:
        """A client of the configured registry, retrying as long as the sink allows."""
        return SchemaRegistryClient(self.registry_url, retry_seconds=self.registry_retry_seconds)
