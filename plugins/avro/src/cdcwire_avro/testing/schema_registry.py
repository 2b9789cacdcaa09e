"""A local, Confluent-API-compatible Schema Registry for tests and demos.

    with LocalSchemaRegistry() as registry:
        uri = f"kafka://...?protocol=avro&schema-registry={registry.url}"

It runs a ``ThreadingHTTPServer`` on 127.0.0.1 (a free port) in a thread and
speaks the subset of the REST API that producers, consumers and
``confluent_kafka.schema_registry.SchemaRegistryClient`` use:

- ``POST /subjects/{s}/versions`` register (idempotent per subject; the same
  schema under two subjects gets the same id), checked against the subject's
  compatibility level (``BACKWARD`` by default) with 409 on a break;
- ``POST /subjects/{s}`` look a schema up; ``GET /subjects``,
  ``/subjects/{s}/versions``, ``/subjects/{s}/versions/{n|latest}``,
  ``DELETE /subjects/{s}``;
- ``GET /schemas/ids/{id}``, ``/schemas/ids/{id}/subjects``, ``/schemas/types``;
- ``GET|PUT /config[/{s}]``, ``POST /compatibility/subjects/{s}/versions/{n|latest}``.

Optional HTTP basic auth (``username``/``password``: 401 otherwise) and a
fault switch, :meth:`fail_next`, that answers the next N requests with a 5xx (its
message echoing the request's headers with ``echo_request``, as some servers and proxies
do: a client must not repeat them).
State lives in memory and dies with the server.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional
from urllib.parse import parse_qs, quote, unquote, urlsplit

from .compatibility import LEVELS, parse, problems_with_level

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"


class RegistryAnswer(Exception):
    """An error answer: HTTP status, Confluent error code and message."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(slots=True)
class _State:
    schemas: list[str] = field(default_factory=list)  # id - 1 -> schema text
    ids_by_canonical: dict[str, int] = field(default_factory=dict)
    subjects: dict[str, list[int]] = field(default_factory=dict)  # subject -> ids, version n at n-1
    compatibility: str = "BACKWARD"
    subject_compatibility: dict[str, str] = field(default_factory=dict)
    registrations: int = 0


def _canonical(schema: Any) -> str:
    return json.dumps(schema, sort_keys=True, separators=(",", ":"))


class LocalSchemaRegistry:
    """An in-memory Schema Registry over HTTP on 127.0.0.1 (``port`` 0: any free one).

    Use as a context manager or start()/stop().
    """

    def __init__(
        self,
        *,
        username: Optional[str] = None,
        password: Optional[str] = None,
        compatibility: str = "BACKWARD",
        port: int = 0,
    ) -> None:
        if compatibility not in LEVELS:
            raise ValueError(f"compatibility must be one of {', '.join(LEVELS)}")
        self.username = username
        self._password = password
        self._state = _State(compatibility=compatibility)
        self._lock = threading.Lock()
        self._faults: list[tuple[int, bool]] = []
        self._failing: tuple[float, int] = (0.0, 503)  # (until, monotonic clock; status)
        self._server: Optional[ThreadingHTTPServer] = None
        self._thread: Optional[threading.Thread] = None
        self.requests_served = 0
        self._wanted_port = port

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> "LocalSchemaRegistry":
        if self._server is not None:
            return self
        handler = type("Handler", (_Handler,), {"registry": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", self._wanted_port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="local-schema-registry", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> "LocalSchemaRegistry":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = self.url if self._server is not None else "stopped"
        return f"LocalSchemaRegistry({state})"

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the registry is not running: call start()")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``, without credentials."""
        return f"http://127.0.0.1:{self.port}"

    def url_with_credentials(self, username: Optional[str] = None, password: Optional[str] = None) -> str:
        """``http://user:pass@127.0.0.1:PORT`` (URL-encoded): the registry's own credentials by default."""
        user = self.username if username is None else username
        secret = self._password if password is None else password
        return f"http://{quote(user or '', safe='')}:{quote(secret or '', safe='')}@127.0.0.1:{self.port}"

    # -- test switches and views -----------------------------------------------------------

    def fail_next(self, count: int, status: int = 503, echo_request: bool = False) -> None:
        """Answer the next ``count`` requests with ``status`` (a 5xx), then serve normally;
        ``echo_request``: the answer's message holds the request line and headers."""
        with self._lock:
            self._faults.extend([(status, echo_request)] * count)

    def fail_for(self, seconds: float, status: int = 503) -> None:
        """Answer every request with ``status`` (a 5xx or 429) for the next ``seconds``: an outage."""
        with self._lock:
            self._failing = (time.monotonic() + seconds, status)

    @property
    def registrations(self) -> int:
        """How many registrations created a new subject version."""
        return self._state.registrations

    def subjects(self) -> list[str]:
        with self._lock:
            return sorted(self._state.subjects)

    def versions(self, subject: str) -> list[int]:
        with self._lock:
            return list(range(1, len(self._state.subjects.get(subject, ())) + 1))

    def texts_by_subject(self) -> dict[str, list[str]]:
        """Each subject's schema texts as first registered, in version order."""
        with self._lock:
            return {s: [self._state.schemas[i - 1] for i in ids] for s, ids in sorted(self._state.subjects.items())}

    # -- request handling (called from the server threads) ---------------------------------

    def authorized(self, header: Optional[str]) -> bool:
        if self.username is None:
            return True
        expected = base64.b64encode(f"{self.username}:{self._password or ''}".encode()).decode()
        return header == f"Basic {expected}"

    def take_fault(self) -> Optional[tuple[int, bool]]:
        """The fault to answer this request with: (status, echo the request), or None."""
        with self._lock:
            self.requests_served += 1
            if self._faults:
                return self._faults.pop(0)
            until, status = self._failing
            return (status, False) if time.monotonic() < until else None

    def handle(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> Any:
        parts = [unquote(p) for p in path.strip("/").split("/")] if path.strip("/") else []
        with self._lock:
            return _Routes(self._state, parts, query, body).dispatch(method)


def _check_records(schema: Any) -> None:
    """fastavro lets a record without ``fields`` through; the Avro spec and Confluent do not."""
    if isinstance(schema, list):
        for branch in schema:
            _check_records(branch)
    elif isinstance(schema, dict):
        if schema.get("type") == "record":
            if not isinstance(schema.get("fields"), list):
                raise ValueError(f"record {schema.get('name')!r} has no 'fields' list")
            for f in schema["fields"]:
                _check_records(f.get("type") if isinstance(f, dict) else None)
        for key in ("items", "values"):
            if key in schema:
                _check_records(schema[key])
        if isinstance(schema.get("type"), (dict, list)):
            _check_records(schema["type"])


class _Routes:
    """One request against the state (the caller holds the lock)."""

    def __init__(self, state: _State, parts: list[str], query: dict[str, list[str]], body: Any) -> None:
        self.s = state
        self.parts = parts
        self.query = query
        self.body = body

    def dispatch(self, method: str) -> Any:
        p = self.parts
        route = (method, len(p), p[0] if p else "")
        if route == ("GET", 1, "subjects"):
            return sorted(self.s.subjects)
        if method == "GET" and len(p) == 3 and p[0] == "subjects" and p[2] == "versions":
            return list(range(1, len(self._subject(p[1])) + 1))
        if method == "GET" and len(p) == 4 and p[0] == "subjects" and p[2] == "versions":
            return self._version_answer(p[1], self._version_number(p[1], p[3]))
        if method == "POST" and len(p) == 3 and p[0] == "subjects" and p[2] == "versions":
            return self._register(p[1])
        if method == "POST" and len(p) == 2 and p[0] == "subjects":
            return self._lookup(p[1])
        if method == "DELETE" and len(p) == 2 and p[0] == "subjects":
            versions = list(range(1, len(self._subject(p[1])) + 1))
            del self.s.subjects[p[1]]
            self.s.subject_compatibility.pop(p[1], None)
            return versions
        if method == "GET" and len(p) == 3 and p[:2] == ["schemas", "ids"]:
            return {"schema": self._schema_text(p[2])}
        if method == "GET" and len(p) == 4 and p[:2] == ["schemas", "ids"] and p[3] == "subjects":
            schema_id = self._schema_id(p[2])
            return sorted(s for s, ids in self.s.subjects.items() if schema_id in ids)
        if route == ("GET", 2, "schemas") and p[1] == "types":
            return ["AVRO"]
        if p and p[0] == "config" and len(p) <= 2:
            return self._config(method, p[1] if len(p) == 2 else None)
        if method == "POST" and len(p) == 5 and p[:2] == ["compatibility", "subjects"] and p[3] == "versions":
            return self._test_compatibility(p[2], p[4])
        raise RegistryAnswer(404, 404, f"HTTP 404 Not Found: {method} /{'/'.join(p)}")

    # -- helpers ---------------------------------------------------------------------------

    def _subject(self, subject: str) -> list[int]:
        ids = self.s.subjects.get(subject)
        if ids is None:
            raise RegistryAnswer(404, 40401, f"Subject '{subject}' not found.")
        return ids

    def _version_number(self, subject: str, text: str) -> int:
        ids = self._subject(subject)
        if text in ("latest", "-1"):
            return len(ids)
        if not text.isdigit() or int(text) < 1:
            raise RegistryAnswer(422, 42202, f"The specified version '{text}' is not a valid version id.")
        if int(text) > len(ids):
            raise RegistryAnswer(404, 40402, f"Version {text} not found.")
        return int(text)

    def _version_answer(self, subject: str, version: int) -> dict:
        schema_id = self.s.subjects[subject][version - 1]
        return {"subject": subject, "version": version, "id": schema_id, "schema": self.s.schemas[schema_id - 1]}

    def _schema_id(self, text: str) -> int:
        if not text.isdigit() or not 1 <= int(text) <= len(self.s.schemas):
            raise RegistryAnswer(404, 40403, "Schema not found")
        return int(text)

    def _schema_text(self, text: str) -> str:
        return self.s.schemas[self._schema_id(text) - 1]

    def _incoming(self) -> tuple[str, Any, str]:
        """(schema text, parsed schema, canonical form) of the request body."""
        body = self.body
        if not isinstance(body, dict) or not isinstance(body.get("schema"), str):
            raise RegistryAnswer(422, 42201, "Invalid schema: the body needs a 'schema' string")
        if body.get("schemaType", "AVRO") != "AVRO":
            raise RegistryAnswer(422, 42201, f"Invalid schema type {body.get('schemaType')!r}: only AVRO")
        if body.get("references"):
            raise RegistryAnswer(422, 42201, "Invalid schema: references are not supported here")
        text = body["schema"]
        try:
            raw = json.loads(text)
            parsed = parse(raw)
            _check_records(raw)
        except Exception as exc:  # fastavro raises several kinds on a bad schema
            raise RegistryAnswer(422, 42201, f"Invalid schema {text[:80]}: {exc}") from None
        return text, parsed, _canonical(raw)

    def _level(self, subject: str) -> str:
        return self.s.subject_compatibility.get(subject, self.s.compatibility)

    def _register(self, subject: str) -> dict:
        text, parsed, canonical = self._incoming()
        ids = self.s.subjects.get(subject, [])
        known = self.s.ids_by_canonical.get(canonical)
        if known is not None and known in ids:
            return {"id": known}
        olds = [parse(json.loads(self.s.schemas[i - 1])) for i in ids]
        found = problems_with_level(self._level(subject), parsed, olds)
        if found:
            raise RegistryAnswer(
                409, 409,
                f"Schema being registered is incompatible with an earlier schema for subject \"{subject}\""
                f" ({self._level(subject)}): {'; '.join(found)}",
            )
        if known is None:
            self.s.schemas.append(text)
            known = self.s.ids_by_canonical[canonical] = len(self.s.schemas)
        self.s.subjects.setdefault(subject, []).append(known)
        self.s.registrations += 1
        return {"id": known}

    def _lookup(self, subject: str) -> dict:
        ids = self._subject(subject)
        _, _, canonical = self._incoming()
        known = self.s.ids_by_canonical.get(canonical)
        if known is None or known not in ids:
            raise RegistryAnswer(404, 40403, "Schema not found")
        return self._version_answer(subject, ids.index(known) + 1)

    def _config(self, method: str, subject: Optional[str]) -> dict:
        if method == "GET":
            if subject is None:
                return {"compatibilityLevel": self.s.compatibility}
            level = self.s.subject_compatibility.get(subject)
            if level is None:
                if self.query.get("defaultToGlobal", ["false"])[0] == "true":
                    return {"compatibilityLevel": self.s.compatibility}
                raise RegistryAnswer(
                    404, 40408, f"Subject '{subject}' does not have subject-level compatibility configured"
                )
            return {"compatibilityLevel": level}
        if method == "PUT":
            level = self.body.get("compatibility") if isinstance(self.body, dict) else None
            if not isinstance(level, str) or level.upper() not in LEVELS:
                raise RegistryAnswer(422, 42203, f"Invalid compatibility level {level!r}")
            if subject is None:
                self.s.compatibility = level.upper()
            else:
                self.s.subject_compatibility[subject] = level.upper()
            return {"compatibility": level.upper()}
        if method == "DELETE":
            if subject is None:
                previous, self.s.compatibility = self.s.compatibility, "BACKWARD"
            else:
                previous = self.s.subject_compatibility.pop(subject, self.s.compatibility)
            return {"compatibilityLevel": previous}
        raise RegistryAnswer(405, 405, f"HTTP 405 Method Not Allowed: {method} /config")

    def _test_compatibility(self, subject: str, version: str) -> dict:
        number = self._version_number(subject, version)
        _, parsed, _ = self._incoming()
        old = parse(json.loads(self.s.schemas[self.s.subjects[subject][number - 1] - 1]))
        level = self._level(subject)
        found = problems_with_level(level.replace("_TRANSITIVE", ""), parsed, [old])
        answer: dict = {"is_compatible": not found}
        if self.query.get("verbose", ["false"])[0] == "true":
            answer["messages"] = found
        return answer


class _Handler(BaseHTTPRequestHandler):
    registry: LocalSchemaRegistry
    protocol_version = "HTTP/1.1"
    # one send per answer and no Nagle: keep-alive clients otherwise wait out delayed ACKs (40 ms)
    wbufsize = 1 << 16
    disable_nagle_algorithm = True
    server_version = "cdcwire-local-schema-registry"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet: tests read their own output
        pass

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            fault = self.registry.take_fault()
            if fault is not None:
                status, echo = fault
                message = "Injected fault: the registry is unavailable"
                if echo:
                    message += f" while serving {self.requestline}: {dict(self.headers.items())}"
                raise RegistryAnswer(status, status * 100 + 1, message)
            if not self.registry.authorized(self.headers.get("Authorization")):
                raise RegistryAnswer(401, 401, "Unauthorized")
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                raise RegistryAnswer(400, 400, "Unexpected character: the body is not JSON") from None
            url = urlsplit(self.path)
            answer = self.registry.handle(method, url.path, parse_qs(url.query), body)
            self._reply(200, answer)
        except RegistryAnswer as exc:
            self._reply(exc.status, {"error_code": exc.code, "message": exc.message})

    def _reply(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", CONTENT_TYPE)
        self.send_header("Content-Length", str(len(data)))
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="schema-registry"')
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._serve("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._serve("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._serve("PUT")

    def do_DELETE(self) -> None:  # noqa: N802
        self._serve("DELETE")
