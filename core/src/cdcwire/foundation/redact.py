"""Keeping secrets out of logs, errors and reprs.

Every place that shows a URI shows it through :func:`redact_url`; secrets a third-party
library may log (botocore at DEBUG) are masked by :func:`keep_secrets_out_of_logs`.
"""

from __future__ import annotations

import difflib
import logging
import re
from typing import Iterable, Optional
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

MASK = "***"

#: Query parameters whose values are always masked.
SECRET_PARAMETER_WORDS = ("password", "secret", "token", "key-password", "sasl-password", "api-key", "access-key")
#: Words of a parameter name that make it look like a secret, misspelt too (``sasl-pasword``):
#: a name none of the declared parameters has is masked when one of its words is close to these,
#: or when it ends in ``key`` (``acess-key``; ``handle-key-columns`` is not a key).
_SECRET_LOOKING_WORDS = ("password", "passwd", "secret", "token", "credential", "credentials")
#: How many times a value is percent-decoded looking for a URL inside (a URL encoded twice).
_MAX_DECODINGS = 3


def is_secret_name(name: str) -> bool:
    low = name.lower()
    return any(word in low for word in SECRET_PARAMETER_WORDS)


def looks_secret(name: str) -> bool:
    """A declared secret's name, or one with a word close to a secret's (``pasword``,
    ``acess-key``, ``sesion-tokn``): the value of an unknown parameter so named is masked."""
    if is_secret_name(name) or name.lower().rstrip("s").endswith("key"):
        return True
    for word in re.split(r"[-_.\s]+", name.lower()):
        if word and difflib.get_close_matches(word, _SECRET_LOOKING_WORDS, n=1, cutoff=0.75):
            return True
    return False


def _with_userinfo_masked(value: str) -> str:
    """``user:password@host`` (a URL missing its scheme) with the password masked."""
    head, at, tail = value.rpartition("@")
    if at and ":" in head and "/" not in head:
        return f"{head.split(':', 1)[0]}:{MASK}@{tail}"
    return value


def inner_url(value: str) -> str | None:
    """A URL a value holds, percent-decoded as many times as it was encoded (up to three)."""
    for _ in range(_MAX_DECODINGS):
        if "://" in value:
            return value
        decoded = unquote(value)
        if decoded == value:
            return None
        value = decoded
    return value if "://" in value else None


def redact_netloc(netloc: str) -> str:
    """Mask the password of ``user:password@host``; keep the user name."""
    if "@" not in netloc:
        return netloc
    userinfo, _, hosts = netloc.rpartition("@")
    user = userinfo.split(":", 1)[0]
    return f"{user}:{MASK}@{hosts}" if ":" in userinfo else f"{user}@{hosts}"


def redact_url(url: str, secret_names: Iterable[str] = (), known_names: Optional[Iterable[str]] = None) -> str:
    """The URL with its password, every secret-looking parameter and every parameter in
    ``secret_names`` (those declared ``secret``) masked.

    Parameter values that are URLs themselves (``schema-registry=https://u:p@h``), also
    percent-encoded once too often, have their own password and secrets masked; a value
    ``user:password@host`` (a URL without its scheme) has its password masked; a parameter
    whose name looks like a secret's (misspelt: ``sasl-pasword``) is masked too, unless it
    is one of ``known_names`` (the declared parameters, when known).
    """
    declared = set(secret_names)
    known = set(known_names) if known_names is not None else set()
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    query = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        inner = inner_url(value)
        if inner is not None:  # a URL (schema-registry=https://u:p@h): its own password masked, host kept
            value = redact_url(inner)
        elif name in declared or is_secret_name(name) or (name not in known and looks_secret(name)):
            value = MASK
        else:
            value = _with_userinfo_masked(value)
        query.append(f"{quote(name, safe='-_.')}={quote(value, safe='-_.,:/*{}@')}")
    shown = urlunsplit((parts.scheme, redact_netloc(parts.netloc), parts.path, "&".join(query), ""))
    head = f"{parts.scheme}:"
    if url[len(head):].startswith("//") and not shown[len(head):].startswith("//"):
        # urlunsplit drops the empty authority of a scheme it does not know: local:///dir stays local:///dir
        shown = f"{head}//{shown[len(head):]}"
    return shown


# --- third-party logging ---------------------------------------------------------------------

#: Credentials in a signed request as HTTP clients log them at DEBUG (botocore's headers):
#: the access key in a SigV4 ``Credential=``, the session token, the Authorization value.
_LOGGED_CREDENTIALS = re.compile(
    r"(Credential=)[^/,\s'\"]+|"
    r"((?:X-Amz-Security-Token|Authorization|Proxy-Authorization)['\"]?\s*[:=]\s*b?['\"]?)[^'\",}\r\n]+",
    re.IGNORECASE,
)
#: Shorter values are not looked for in log lines: they would mask ordinary words.
_SHORTEST_SECRET = 4


class SecretFilter(logging.Filter):
    """Masks the secrets it was given, and credentials in logged request headers, in every
    record of the loggers it is on (the record is rewritten, then passed on)."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a record that cannot format is left to logging to report
            return True
        masked = _LOGGED_CREDENTIALS.sub(lambda m: (m.group(1) or m.group(2)) + MASK, text)
        for secret in sorted(self.secrets, key=len, reverse=True):
            masked = masked.replace(secret, MASK)
        if masked != text:
            record.msg, record.args = masked, None
        return True


_FILTER = SecretFilter()


def keep_secrets_out_of_logs(secrets: Iterable[Optional[str]], logger_prefixes: Iterable[str]) -> None:
    """Mask ``secrets`` in what the third-party loggers under ``logger_prefixes`` log (botocore
    logs a request's keys and session token at DEBUG). A filter on a logger sees only the
    records logged on it, not its children's, so it goes on every logger under each prefix that
    exists now: call this after importing the library, whose loggers exist from its import."""
    _FILTER.secrets.update(s for s in secrets if s and len(s) >= _SHORTEST_SECRET)
    prefixes = tuple(logger_prefixes)
    names = [name for name in list(logging.Logger.manager.loggerDict)
             if any(name == p or name.startswith(p + ".") for p in prefixes)]
    for name in {*prefixes, *names}:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
