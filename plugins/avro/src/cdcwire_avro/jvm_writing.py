"""avro's messages made by the Java tier (``io.cdcwire.avro.AvroBatchEncoder``, a ``BatchEncoder``
of the core's JVM framework: ``jvm/`` beside this module).

The Python encoder (:mod:`.encoder`) stays the reference: avro writes one message per row, so Java
closes each message on its own row and gives its Confluent-framed key and value byte for byte, or
leaves the row to Python, which then writes exactly its own message. Java registers each table
version's schemas itself (a plain HTTP POST, as the Python client does, cached per executor): the
texts it registers are the ones :func:`.record_schemas.record_schema` makes, so the registry
gives both tiers the same ids. Any answer but an id leaves the row (and the task's later rows)
to Python, whose client retries and words every error.

Nothing Java needs is written twice: each column kind's field text comes from the installed
encoder's own functions with placeholders (:func:`field_table`), its value rule from probing the
kind's conversion (:data:`_RULES`); a kind no rule matches has no entry, and its rows stay Python's.
"""

from __future__ import annotations

from typing import Any, Optional
from urllib.parse import urlsplit

from cdcwire.plugin_api import MESSAGE_OVERHEAD, Column, ColumnFlag, ColumnType, EncodeError, SinkConfig

from . import wire
from .column_types import Convert, avro_type_of
from .names import key_subject, sanitize_name, value_subject
from .options import AvroOptions
from .record_schemas import EXTENSION_NAMES, record_schema

#: Placeholders Java fills in (none is a text the encoder writes itself).
NAME, PRECISION, SCALE, LENGTH, ALLOWED = "@name@", "@precision@", "@scale@", "@length@", "@allowed@"
#: A column name sanitising keeps, which appears nowhere else in a field's text.
_PROBE_NAME = "Q7name7Q"
#: Numbers the probes give a DECIMAL and a BIT (each appears once in its field text).
_PROBE_PRECISION, _PROBE_SCALE, _PROBE_LENGTH = 59, 27, 37
#: The flag bits a column's field text and value rule can depend on (probed in every combination).
_FLAGS = (int(ColumnFlag.BINARY), int(ColumnFlag.UNSIGNED), int(ColumnFlag.NULLABLE))
_U64 = (1 << 64) - 1
#: The type texts the probes give the kinds whose field depends on theirs.
_PROBE_TYPES = {
    ColumnType.DECIMAL: f"decimal({_PROBE_PRECISION},{_PROBE_SCALE})",
    ColumnType.BIT: f"bit({_PROBE_LENGTH})",
    ColumnType.ENUM: f"enum('{ALLOWED}')",
    ColumnType.SET: f"set('{ALLOWED}')",
}
#: The same kinds with two elements, for their value rules.
_RULE_TYPES = {ColumnType.ENUM: "enum('p','q')", ColumnType.SET: "set('p','q')"}


def _decimal_bytes(number: int) -> bytes:
    return number.to_bytes(number.bit_length() // 8 + 1, "big", signed=True)


#: Java's value rules and the probes that pick one: (value, what the conversion gives), with the
#: Avro type the field must have. "same": the value as it is (an integer, a float, a text, bytes);
#: "u64": an unsigned 64-bit integer as the int64 of its bits; "utext": an integer as decimal
#: text; "bit": minimal big-endian bytes; "decimal": the unscaled two's-complement bytes;
#: "enum"/"set": the element names of an index / a mask.
_RULES: dict[str, list[tuple[Any, Any]]] = {
    "u64": [(5, 5), (_U64, -1), (1 << 63, -(1 << 63))],
    "utext": [(5, "5"), (_U64, str(_U64))],
    "bit": [(0, b"\x00"), (256, b"\x01\x00"), (4095, b"\x0f\xff")],
    "decimal": [("-1.5", _decimal_bytes(-15 * 10 ** (_PROBE_SCALE - 1))), ("0", b"\x00")],
    "set": [(0, ""), (3, "p,q"), (2, "q")],  # before "enum": a SET's mask 2 is also element 2's name
    "enum": [(0, ""), (2, "q")],
}


def refusal(config: SinkConfig) -> Optional[str]:
    """Why the Java tier cannot encode messages of this configuration, or None when it can."""
    url = config["schema-registry"] or ""
    parts = urlsplit(url.strip())
    if parts.scheme != "http" or not parts.hostname:
        return "avro's Java encoder registers schemas with a plain http:// registry only"
    if parts.username is not None or parts.password is not None:
        return "avro's Java encoder takes no registry credentials (they stay in the Python client)"
    return None


def _rule(convert: Convert) -> Optional[str]:
    """The one Java rule a kind's conversion follows on every probe, or None."""
    if convert is None:
        return "same"
    for name, probes in _RULES.items():
        try:
            if all(type(got := convert(v)) is type(out) and got == out for v, out in probes):
                return name
        except (TypeError, ValueError, AttributeError, OverflowError):
            continue
    return None


def _entry(t: ColumnType, flags: int, options: AvroOptions) -> Optional[dict[str, str]]:
    """The field text (placeholders in) and value rule of a column of type ``t`` and ``flags``."""
    try:
        avro_type = avro_type_of(Column(_PROBE_NAME, t, ColumnFlag(flags), None, _PROBE_TYPES.get(t)), options)
        rule = _rule(avro_type.to_avro if t not in _RULE_TYPES else
                     avro_type_of(Column(_PROBE_NAME, t, ColumnFlag(flags), None, _RULE_TYPES[t]), options).to_avro)
        field = _field_text(t, flags, _PROBE_TYPES.get(t), options)
        bare = _field_text(t, flags, None, options) if t == ColumnType.BIT else None
    except EncodeError:
        return None
    if rule is None or field is None:
        return None
    entry = {"rule": rule, "type": str(avro_type.schema["type"]), "field": field}
    if bare is not None:  # a BIT without a type text says no length
        entry["bare"] = bare
    return entry


def _field_text(t: ColumnType, flags: int, type_text: Optional[str], options: AvroOptions) -> Optional[str]:
    """A column's field as :func:`.record_schemas.record_schema` writes it, with placeholders for its
    name and the probed numbers; None when a probe is not found exactly once (Java would fill the
    wrong place)."""
    text = record_schema("s", "t", [Column(_PROBE_NAME, t, ColumnFlag(flags), None, type_text)], [0],
                         options, False).text
    at = text.index('"fields":[') + len('"fields":[')
    if not text.endswith("]}"):
        return None
    text = text[at:-2]
    for probe, placeholder in ((f'"name":"{_PROBE_NAME}"', f'"name":"{NAME}"'),
                               (f'"precision":{_PROBE_PRECISION}', f'"precision":{PRECISION}'),
                               (f'"scale":{_PROBE_SCALE}', f'"scale":{SCALE}'),
                               (f'"length":"{_PROBE_LENGTH}"', f'"length":"{LENGTH}"')):
        if text.count(probe) > 1:
            return None
        text = text.replace(probe, placeholder)
    return text


def field_table(options: AvroOptions) -> dict[str, list[Optional[dict[str, str]]]]:
    """For each type name: per flags combination (the bits of ``flags``, in order) its field text
    and value rule, or None where the encoder refuses the kind or Java has no rule for it."""
    table = {}
    for t in ColumnType:
        entries = []
        for combo in range(1 << len(_FLAGS)):
            flags = sum(bit for i, bit in enumerate(_FLAGS) if combo >> i & 1)
            entries.append(_entry(t, flags, options))
        table[t.name] = entries
    return table


def record_texts(options: AvroOptions) -> dict[str, str]:
    """A record's text around its fields, made by :func:`.record_schemas.record_schema`: the head
    (``@record@`` and ``@namespace@`` for its names) up to the fields, the extension's fields,
    and the end."""
    plain = record_schema("s9", "t9", [], [], options, False).text
    extended = record_schema("s9", "t9", [], [], options, True).text
    at = plain.index('"fields":[') + len('"fields":[')
    namespace = f"{sanitize_name(options.namespace)}.s9"
    head = plain[:at].replace('"name":"t9"', '"name":"@record@"').replace(
        f'"namespace":"{namespace}"', '"namespace":"@namespace@"')
    end = plain[at:]
    return {"head": head, "extension": extended[at: len(extended) - len(end)], "end": end}


def encoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java encoder is made with (the core adds the record checks' tables)."""
    options = AvroOptions.from_config(config)
    parts = urlsplit(options.registry_url.strip())
    return {
        "fields": field_table(options),
        "flag_bits": list(_FLAGS),
        "records": record_texts(options),
        "namespace": sanitize_name(options.namespace),
        "extension": options.tidb_extension,
        "registry": f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}",
        "content_type": "application/vnd.schemaregistry.v1+json",
        "key_suffix": key_subject(""),
        "value_suffix": value_subject(""),
        "magic": wire.MAGIC,
        "extension_names": sorted(EXTENSION_NAMES),
        "max_message_bytes": int(config["max-message-bytes"]),
        "overhead": MESSAGE_OVERHEAD,
    }

