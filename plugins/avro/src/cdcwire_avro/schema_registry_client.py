"""A Confluent Schema Registry client over HTTP: register schemas, fetch them by id.

Small on purpose: the encoder needs ``register`` and the decoder ``schema_text``,
both cached, so a stream registers each schema once, not once per row.
Credentials come from the URL (``https://user:pass@host``, URL-encoded) and
never appear in an error, a repr or a log line. Connection errors, timeouts,
5xx and 429 answers are retried with capped exponential backoff until a total
deadline (``schema-registry-retry-seconds``, 30 s by default): a registry that
restarts or fails over must not fail a long job, one that stays down must fail
it with the reason rather than hang.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import time
from dataclasses import dataclass
from typing import Any, Optional
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import requests

from cdcwire.plugin_api import CdcwireError

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
#: How long a failing registry is retried by default, in seconds (a restart or fail-over fits in it).
DEFAULT_RETRY_SECONDS = 30.0
#: The first pause between attempts, doubled after each failure up to MAX_BACKOFF.
BACKOFF = 0.1
MAX_BACKOFF = 2.0
#: The shortest timeout an attempt gets when the deadline is close.
_LAST_ATTEMPT_TIMEOUT = 1.0
#: Failures worth another attempt: the registry may come back (restart, fail-over, overload).
_TRANSIENT_ERRORS = (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError)

log = logging.getLogger(__name__)
#: An HTTP credential as a registry or a proxy may echo it back in an error body.
_ECHOED_CREDENTIAL = re.compile(r"\b(Basic|Bearer|Digest)(\s+)[^\s'\",}]+", re.IGNORECASE)


class SchemaRegistryError(CdcwireError):
    """The registry refused a request or could not be reached.

    ``status`` is the HTTP status (None when the registry was unreachable),
    ``subject`` the subject concerned, if any.
    """

    def __init__(self, message: str, status: Optional[int] = None, subject: Optional[str] = None):
        super().__init__(message)
        self.status = status
        self.subject = subject


class SchemaNotFoundError(SchemaRegistryError):
    """The registry does not know a schema id (404)."""


@dataclass(frozen=True, slots=True)
class RegistryAddress:
    """A registry URL split into the address shown in messages and the credentials."""

    base_url: str
    username: Optional[str] = None
    password: Optional[str] = None

    @classmethod
    def parse(cls, url: str) -> "RegistryAddress":
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("the schema registry must be an http:// or https:// URL with a host")
        if "@" in parts.path or "@" in parts.query or "@" in parts.fragment:
            raise ValueError(
                "the schema registry URL is malformed: percent-encode '@', ':' and '/' in the user name"
                " and password, and percent-encode the whole URL once more inside a sink URI"
            )
        try:
            parts.port
        except ValueError:
            raise ValueError("the schema registry URL has an invalid port") from None
        host = parts.netloc.rpartition("@")[2]
        base = urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))
        user = unquote(parts.username) if parts.username is not None else None
        password = unquote(parts.password) if parts.password is not None else None
        return cls(base, user, password)

    def __repr__(self) -> str:
        who = f", user={self.username!r}" if self.username else ""
        return f"RegistryAddress({self.base_url!r}{who})"

    def without_credentials(self, text: str) -> str:
        """``text`` (what the registry answered) with the password, the basic-auth header value
        and any echoed HTTP credential masked: a registry or proxy may echo the request back."""
        text = _ECHOED_CREDENTIAL.sub(r"\1\2***", text)
        if self.password:
            token = base64.b64encode(f"{self.username or ''}:{self.password}".encode()).decode()
            for secret in (token, self.password):
                text = text.replace(secret, "***")
        return text


class SchemaRegistryClient:
    """Registers and fetches Avro schemas. One instance per encoder or decoder.

    A request that meets a connection error, a timeout, a 5xx or a 429 answer is tried
    again after ``backoff`` seconds, then twice that, up to ``max_backoff`` (or the
    registry's ``Retry-After``), until ``retry_seconds`` have passed since its first
    attempt; then it fails naming the registry, how long it tried and the last failure.
    ``timeout`` bounds one attempt.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 10.0,
        retry_seconds: float = DEFAULT_RETRY_SECONDS,
        backoff: float = BACKOFF,
        max_backoff: float = MAX_BACKOFF,
    ) -> None:
        self.address = RegistryAddress.parse(url)
        self.timeout = timeout
        self.retry_seconds = retry_seconds
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._session = requests.Session()
        if self.address.username is not None:
            self._session.auth = (self.address.username, self.address.password or "")
        self._ids: dict[tuple[str, str], int] = {}
        self._texts: dict[int, str] = {}

    def __repr__(self) -> str:
        return f"SchemaRegistryClient({self.address.base_url!r})"

    def close(self) -> None:
        self._session.close()

    def register(self, subject: str, schema_text: str) -> int:
        """The id of ``schema_text`` under ``subject``, registering it when new (cached)."""
        cached = self._ids.get((subject, schema_text))
        if cached is not None:
            return cached
        body = json.dumps({"schema": schema_text})
        answer = self._request("POST", f"/subjects/{quote(subject, safe='')}/versions", subject, body)
        schema_id = answer.get("id") if isinstance(answer, dict) else None
        if not isinstance(schema_id, int):
            raise SchemaRegistryError(
                f"schema registry {self.address.base_url} answered registration of subject"
                f" {subject!r} without an id", subject=subject,
            )
        self._ids[(subject, schema_text)] = schema_id
        self._texts.setdefault(schema_id, schema_text)
        return schema_id

    def schema_text(self, schema_id: int) -> str:
        """The schema JSON text registered under ``schema_id`` (cached)."""
        text = self._texts.get(schema_id)
        if text is not None:
            return text
        answer = self._request("GET", f"/schemas/ids/{schema_id}", None, None)
        text = answer.get("schema") if isinstance(answer, dict) else None
        if not isinstance(text, str):
            raise SchemaRegistryError(f"schema registry {self.address.base_url} sent no schema for id {schema_id}")
        self._texts[schema_id] = text
        return text

    def all_schemas(self) -> dict[int, str]:
        """Every schema the registry holds, by id: each version of each subject (and cached).

        Why: the Java decoder is sent its schemas once, from the driver, instead of each executor
        asking the registry per message; a message whose id is not among these stays with Python.
        """
        texts: dict[int, str] = {}
        subjects = self._request("GET", "/subjects", None, None)
        for subject in subjects if isinstance(subjects, list) else []:
            named = quote(str(subject), safe="")
            versions = self._request("GET", f"/subjects/{named}/versions", subject, None)
            for version in versions if isinstance(versions, list) else []:
                answer = self._request("GET", f"/subjects/{named}/versions/{version}", subject, None)
                schema_id = answer.get("id") if isinstance(answer, dict) else None
                text = answer.get("schema") if isinstance(answer, dict) else None
                if isinstance(schema_id, int) and isinstance(text, str):
                    texts[schema_id] = text
        self._texts.update(texts)
        return texts

    def _request(self, method: str, path: str, subject: Optional[str], body: Optional[str]) -> Any:
        url = self.address.base_url + path
        headers = {"Accept": f"{CONTENT_TYPE}, application/json"}
        if body is not None:
            headers["Content-Type"] = CONTENT_TYPE
        started = time.monotonic()
        deadline = started + self.retry_seconds
        attempt = 0
        while True:
            attempt += 1
            timeout = self.timeout
            if attempt > 1:
                timeout = min(timeout, max(deadline - time.monotonic(), _LAST_ATTEMPT_TIMEOUT))
            asked_wait: Optional[float] = None
            try:
                response = self._session.request(method, url, data=body, headers=headers, timeout=timeout)
            except _TRANSIENT_ERRORS as exc:
                problem = f"cannot reach schema registry {self.address.base_url}: {type(exc).__name__}"
                status = None
            except requests.RequestException as exc:
                raise SchemaRegistryError(
                    f"schema registry {self.address.base_url}: {method} {path} failed: {type(exc).__name__}",
                    None, subject,
                ) from None
            else:
                status = response.status_code
                if status < 300:
                    return _json(response)
                if status < 500 and status != 429:
                    raise self._refusal(method, path, subject, response)
                problem = (
                    f"schema registry {self.address.base_url} answered {status}"
                    f" to {method} {path}: {self._registry_message(response)}"
                )
                asked_wait = _retry_after(response)
            left = deadline - time.monotonic()
            if left <= 0:
                tried = time.monotonic() - started
                attempts = f"{attempt} attempt{'s' if attempt > 1 else ''}"
                raise SchemaRegistryError(
                    f"{problem} (gave up after {attempts} over {tried:.1f} s; parameter"
                    f" schema-registry-retry-seconds={self.retry_seconds:g} sets how long to retry)",
                    status, subject,
                )
            pause = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
            if asked_wait is not None:
                pause = max(pause, asked_wait)
            pause = min(pause, left)
            log.warning("%s; attempt %d failed, retrying in %.2f s (%.1f s left)", problem, attempt, pause,
                        left)
            time.sleep(pause)

    def _registry_message(self, response: requests.Response) -> str:
        return _registry_message(response, self.address)

    def _refusal(self, method: str, path: str, subject: Optional[str], response: requests.Response) -> Exception:
        status = response.status_code
        where = f"schema registry {self.address.base_url}"
        if status == 401:
            user = f" for user {self.address.username!r}" if self.address.username else " (no credentials given)"
            return SchemaRegistryError(f"{where} refused the credentials{user}: 401 Unauthorized", 401, subject)
        if status == 403:
            return SchemaRegistryError(f"{where} denied {method} {path}: 403 Forbidden", 403, subject)
        if status == 404:
            return SchemaNotFoundError(f"{where}: {method} {path} not found: {self._registry_message(response)}",
                                       404, subject)
        if status == 409:
            return SchemaRegistryError(
                f"{where} rejected the schema for subject {subject!r} as incompatible (409):"
                f" {self._registry_message(response)}", 409, subject,
            )
        return SchemaRegistryError(
            f"{where} answered {status} to {method} {path}: {self._registry_message(response)}", status, subject
        )


def _json(response: requests.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        raise SchemaRegistryError(
            f"schema registry answered {response.status_code} with a body that is not JSON"
        ) from None


def _retry_after(response: requests.Response) -> Optional[float]:
    """The seconds a 429 or 503 asks the client to wait (``Retry-After``), when given as a number."""
    text = response.headers.get("Retry-After", "").strip()
    try:
        seconds = float(text)
    except ValueError:
        return None
    return seconds if 0 <= seconds < 3600 else None


def _registry_message(response: requests.Response, address: RegistryAddress) -> str:
    """What the registry said, short, with any credential it echoed masked (before it is cut
    short: a cut could leave part of a password)."""
    try:
        body = response.json()
    except ValueError:
        return address.without_credentials(response.text)[:200]
    if isinstance(body, dict) and "message" in body:
        code = body.get("error_code")
        message = address.without_credentials(str(body["message"]))
        return message + (f" (error code {code})" if code is not None else "")
    return address.without_credentials(str(body))[:200]
