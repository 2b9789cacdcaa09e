"""The external storage a claim-check store writes to: ``file://`` and ``s3://`` through fsspec.

URIs take TiCDC's external-storage form, so the ``claim-check-storage-uri`` of a
changefeed works here as it is::

    file:///var/cdc/claim-check
    s3://bucket/prefix?endpoint=http://127.0.0.1:9000&access-key=AK&secret-access-key=SK&region=us-east-1

S3 credentials not in the URI come from the usual AWS chain (environment, profile,
instance role). The URI's secrets never leave this module: :meth:`Storage.display` is the
URI with them masked, and what a message may carry (:meth:`Storage.location`) has no query
at all.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import parse_qsl, urlsplit

from ..foundation.errors import SinkURIError, TransportError
from ..foundation.extras import extra_required
from ..foundation.params import parse_boolean
from ..foundation.redact import MASK, inner_url, keep_secrets_out_of_logs

SCHEMES = ("file", "s3")
#: TiCDC's S3 URI parameters, and the s3fs argument each becomes.
S3_PARAMETERS = {
    "endpoint", "access-key", "secret-access-key", "session-token", "region", "force-path-style", "provider",
    "storage-class", "sse", "sse-kms-key-id", "acl", "role-arn", "external-id",
}
_S3_SECRETS = ("access-key", "secret-access-key", "session-token")
#: The libraries an S3 storage goes through, whose loggers get the secrets filter.
_S3_LOGGERS = ("botocore", "aiobotocore", "s3fs", "fsspec", "urllib3", "aiohttp")
#: Connection and read time limits, and attempts, for S3 calls: an unreachable storage fails a
#: write in seconds, naming the storage, rather than hanging the task.
_S3_TIMEOUTS = {"connect_timeout": 5, "read_timeout": 30, "retries": {"max_attempts": 3, "mode": "standard"}}


class StorageError(TransportError):
    """The storage could not be reached, or refused a read or a write (the reason in the text).

    A TransportError: a write that cannot store a claim-checked message fails as a write
    that cannot deliver does (never dead-lettered as the event's fault)."""


class ObjectMissing(StorageError):
    """The object a location names is not in the storage."""


@dataclass(frozen=True, slots=True)
class Storage:
    """A directory of one file system: local, or a bucket prefix on S3."""

    scheme: str
    root: str  # file: an absolute path; s3: bucket/prefix
    options: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def parse(cls, uri: str, parameter: str = "claim-check-storage-uri") -> "Storage":
        """The storage a URI names, or SinkURIError naming ``parameter`` and what is wrong."""
        try:
            parts = urlsplit(uri)
        except ValueError as exc:
            raise SinkURIError(f"parameter {parameter!r}: not a URI ({exc})", parameter) from None
        scheme = parts.scheme.lower()
        if scheme not in SCHEMES:
            shown = scheme or "no scheme"
            if not scheme and inner_url(uri) is not None:  # not shown: its query may hold keys
                raise SinkURIError(
                    f"parameter {parameter!r}: the storage URI is percent-encoded more than once; inside a"
                    " sink URI, percent-encode it once (its ':', '/', '?', '&' and '=')", parameter,
                )
            raise SinkURIError(
                f"parameter {parameter!r}: storage scheme {shown!r} is not supported; use file:///path or"
                " s3://bucket/prefix?endpoint=...", parameter,
            )
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        if scheme == "file":
            if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
                raise SinkURIError(
                    f"parameter {parameter!r}: a file:// storage needs an absolute path (file:///dir)", parameter
                )
            if query:
                raise SinkURIError(f"parameter {parameter!r}: a file:// storage takes no parameters", parameter)
            return cls("file", parts.path.rstrip("/") or "/")
        if not parts.netloc:
            raise SinkURIError(f"parameter {parameter!r}: an s3:// storage needs a bucket (s3://bucket/prefix)",
                               parameter)
        unknown = sorted(set(query) - S3_PARAMETERS)
        if unknown:
            raise SinkURIError(
                f"parameter {parameter!r}: unknown S3 storage parameter {unknown[0]!r}"
                f" (known: {', '.join(sorted(S3_PARAMETERS))})", parameter,
            )
        if "force-path-style" in query:
            try:
                parse_boolean(query["force-path-style"])
            except ValueError as exc:
                raise SinkURIError(f"parameter {parameter!r}: S3 option 'force-path-style' {exc}", parameter) from None
        root = (parts.netloc + "/" + parts.path.strip("/")).rstrip("/")
        return cls("s3", root, query)

    # -- what may be shown ---------------------------------------------------------------

    def location(self, name: str) -> str:
        """What a message carries to point at object ``name``: no query, so no secret."""
        if self.scheme == "file":
            return f"file://{posixpath.join(self.root, name)}"
        return f"s3://{self.root}/{name}"

    def display(self) -> str:
        """The storage for logs and errors: S3 keys masked, the endpoint shown."""
        if self.scheme == "file":
            return f"file://{self.root}"
        shown = [f"{k}={MASK if k in _S3_SECRETS else v}" for k, v in sorted(self.options.items())]
        return f"s3://{self.root}" + ("?" + "&".join(shown) if shown else "")

    def __repr__(self) -> str:
        return f"Storage({self.display()!r})"

    # -- objects -------------------------------------------------------------------------

    def put(self, name: str, data: bytes) -> None:
        """Write object ``name`` whole: a reader sees all of it or nothing (see :class:`ObjectWriter`)."""
        writer = self.writer(name)
        try:
            writer.write(data)
            writer.commit()
        except BaseException:  # an interrupt too: no half-written object stays behind
            writer.abort()
            raise

    def writer(self, name: str) -> "ObjectWriter":
        """An :class:`ObjectWriter` of object ``name``: its bytes come in parts, never all in memory."""
        return ObjectWriter(self, name)

    def get(self, name: str) -> bytes:
        """Object ``name``'s bytes; ObjectMissing when there is none."""
        fs, path = self._fs(), self._path(name)
        try:
            return fs.cat_file(path)
        except FileNotFoundError:
            raise ObjectMissing(f"{name} is not in {self.display()}") from None
        except Exception as exc:  # noqa: BLE001
            raise StorageError(f"cannot read {name} from {self.display()}: {_reason(exc)}") from None

    def names(self) -> list[str]:
        """Every object's name under the root, recursively (``a/b/c.csv``), sorted; none when the
        root does not exist. A storage sink's layout is read from this one listing."""
        fs, root = self._fs(), self.root
        try:
            fs.invalidate_cache()  # s3fs keeps listings: a second look must see new objects
            found = fs.find(root)
        except FileNotFoundError:
            return []
        except Exception as exc:  # noqa: BLE001
            raise StorageError(f"cannot list {self.display()}: {_reason(exc)}") from None
        prefix = root.rstrip("/") + "/"
        return sorted(p[len(prefix):] for p in found if p.startswith(prefix))

    def _path(self, name: str) -> str:
        return posixpath.join(self.root, name)

    def _fs(self) -> Any:
        with extra_required("claim-check", f"a {self.scheme}:// claim-check storage"):
            import fsspec

            if self.scheme == "file":
                return fsspec.filesystem("file")
            import s3fs  # noqa: F401 - registers the s3 protocol with fsspec
        # botocore logs the access key and the session token at DEBUG, should an application turn it on
        keep_secrets_out_of_logs((self.options.get(k) for k in _S3_SECRETS), _S3_LOGGERS)
        return fsspec.filesystem("s3", **_s3_arguments(self.options))


#: The part size of an S3 object written in parts (S3's smallest is 5 MiB): what a writer holds.
PART_BYTES = 8 << 20


class ObjectWriter:
    """One object of a storage written in parts (a data file of a storage-sink layout, say), so
    that its bytes are never all in memory, and a reader still sees all of it or nothing.

    file: written aside (``.<name>.<random>.tmp``, through a buffered file) and renamed into
    place by :meth:`commit`; S3: an upload in :data:`PART_BYTES` parts (one PUT when smaller)
    that :meth:`commit` completes. :meth:`abort` (and any failure) leaves nothing behind: the
    aside file is removed, the upload aborted. A failure is a :class:`StorageError` naming the
    object and the storage. ``bytes``: how many have been written to it."""

    def __init__(self, storage: Storage, name: str) -> None:
        self.storage, self.name = storage, name
        self.bytes = 0
        path = storage._path(name)
        self._path = path
        self._aside: Optional[str] = None
        self._out: Any = None
        fs = storage._fs()  # a missing extra says what to install, not "cannot write"
        try:
            if storage.scheme == "file":
                folder, base = posixpath.split(path)  # a name may hold directories (a storage-sink layout)
                os.makedirs(folder, exist_ok=True)
                self._aside = posixpath.join(folder, f".{base}.{os.urandom(8).hex()}.tmp")
                self._out = open(self._aside, "wb", buffering=1 << 20)
            else:
                self._out = fs.open(path, "wb", block_size=PART_BYTES)
        except Exception as exc:  # noqa: BLE001 - any failure of the storage is one error here
            self._failed(exc)

    def write(self, data: bytes) -> None:
        """Add ``data`` to the object (held until a part is full, then sent)."""
        try:
            self._out.write(data)
        except Exception as exc:  # noqa: BLE001
            self._failed(exc)
        self.bytes += len(data)

    def commit(self) -> None:
        """Put the object in place, whole."""
        out, self._out = self._out, None
        try:
            if self._aside is not None:
                try:
                    out.flush()
                    os.fsync(out.fileno())
                finally:
                    out.close()
                os.replace(self._aside, self._path)
                self._aside = None
            else:
                out.close()
        except Exception as exc:  # noqa: BLE001
            self._out = out
            self._failed(exc)

    def abort(self) -> None:
        """Leave nothing of the object behind (a writer that failed, or one given up on)."""
        out, self._out = self._out, None
        aside, self._aside = self._aside, None
        if aside is not None:
            if out is not None:
                try:
                    out.close()
                except OSError:  # a full disk: the buffered rest cannot go out, and need not
                    pass
            try:
                os.unlink(aside)
            except OSError:
                pass
        elif out is not None:
            try:
                out.discard()  # aborts the multipart upload, if one started
            except Exception:  # noqa: BLE001 - giving up on a write that already failed
                pass
            out.closed = True  # or fsspec's __del__ would close it: complete what was given up

    def _failed(self, exc: BaseException) -> None:
        self.abort()
        raise StorageError(f"cannot write {self.name} to {self.storage.display()}: {_reason(exc)}") from None


def _s3_arguments(options: dict[str, str]) -> dict[str, Any]:
    client: dict[str, Any] = {}
    config: dict[str, Any] = dict(_S3_TIMEOUTS)
    if options.get("endpoint"):
        client["endpoint_url"] = options["endpoint"]
    if options.get("region"):
        client["region_name"] = options["region"]
    if parse_boolean(options.get("force-path-style", "false")):
        config["s3"] = {"addressing_style": "path"}
    arguments: dict[str, Any] = {"client_kwargs": client, "config_kwargs": config}
    if options.get("access-key"):
        arguments["key"] = options["access-key"]
    if options.get("secret-access-key"):
        arguments["secret"] = options["secret-access-key"]
    if options.get("session-token"):
        arguments["token"] = options["session-token"]
    return arguments


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 300 else text[:300] + "..."


def object_name(location: str) -> Optional[str]:
    """The file name of a claim-check location, as the reference's decoders take it
    (``filepath.Split``): never a path to follow, so a message cannot point a reader
    outside its configured storage. None when the location ends in no usable name."""
    name = location.rsplit("/", 1)[-1]
    if not name or name in (".", ".."):
        return None
    return name
