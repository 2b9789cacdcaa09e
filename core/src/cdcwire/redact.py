"""Keeping secrets out of logs, errors and reprs.

Every place that shows a URI shows it through :func:`redact_url`.
"""

from __future__ import annotations

from typing import Iterable
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

MASK = "***"

#: Query parameters whose values are always masked.
SECRET_PARAMETER_WORDS = ("password", "secret", "token", "key-password", "sasl-password", "api-key", "access-key")


def is_secret_name(name: str) -> bool:
    low = name.lower()
    return any(word in low for word in SECRET_PARAMETER_WORDS)


def redact_netloc(netloc: str) -> str:
    """Mask the password of ``user:password@host``; keep the user name."""
    if "@" not in netloc:
        return netloc
    userinfo, _, hosts = netloc.rpartition("@")
    user = userinfo.split(":", 1)[0]
    return f"{user}:{MASK}@{hosts}" if ":" in userinfo else f"{user}@{hosts}"


def redact_url(url: str, secret_names: Iterable[str] = ()) -> str:
    """The URL with its password, every secret-looking parameter and every parameter in
    ``secret_names`` (those declared ``secret``) masked.

    Parameter values that are URLs themselves (``schema-registry=https://u:p@h``)
    have their own password masked.
    """
    declared = set(secret_names)
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    query = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if "://" in value:  # a URL (schema-registry=https://u:p@h): its own password masked, host kept
            value = redact_url(value)
        elif name in declared or is_secret_name(name):
            value = MASK
        query.append(f"{quote(name, safe='-_.')}={quote(value, safe='-_.,:/*{}@')}")
    return urlunsplit((parts.scheme, redact_netloc(parts.netloc), parts.path, "&".join(query), ""))
