"""cdcwire errors keep their type and attributes across Spark.

Why: an error raised in a Spark task reaches the driver as a Spark exception holding
only the text of the executor's Python traceback. Parsing ``cdcwire.foundation.errors.XError:
message`` out of that text gives back the class at best and none of its attributes
(``SinkURIError.parameter``, ``DecodeError.offset``...), and a class whose
constructor takes more than the message cannot be rebuilt from it. A caller of
``cdcwire.spark.write`` should catch what ``cdcwire.encode`` raises, whichever stage
failed.

How: every executor-side entry point (the routing and encoding stages, the data
sources' readers and writer) runs inside :func:`carried_to_driver`, which adds a
note to a cdcwire error on its way out: one line that reads on its own (the error's
class and message, for whoever sees only the Spark exception's text) and then, after
:data:`MARKER`, the base64 of a JSON record of its class, ``args``, attributes and notes. Python prints
notes in the traceback, so the line reaches the driver in the Spark exception's
text, where :func:`cdcwire_error_in` (used under :func:`cdcwire_errors_raised`)
rebuilds the error: the same class, ``args`` (so the same ``str()``), attributes
and notes, without calling its constructor (which may want other arguments).

JSON and not pickle: the text around the line may quote input data, so a forged
line must not be able to run code. For the same reason the class is looked up in
modules the driver has already loaded (cdcwire's, its plugins', the caller's), never
imported, and must be a :class:`CdcwireError`; one the driver has not loaded comes
back as a CdcwireError with the same message, attributes and notes. Nothing new is
revealed: the record holds what the error already holds, and cdcwire errors are
scrubbed of passwords and tokens when they are made.

A failure that is no cdcwire error (a lost executor, a bug) stays Spark's exception.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, NoReturn, Optional

from ...foundation.errors import CdcwireError

#: Ends the note that carries an error: ``Class: message [carried by cdcwire: BASE64]``, the
#: part a person reads first, the record for :func:`cdcwire_error_in` after it.
MARKER = "[carried by cdcwire to the Spark driver: "

_CARRIED = re.compile(rf"{re.escape(MARKER)}([A-Za-z0-9+/=]+)\]\s*$", re.MULTILINE)
#: How much of the message the carrying line repeats (the record holds all of it).
_SHOWN = 300
#: The last line of a traceback: ``module.Class: message`` (a fallback for errors not carried).
_TRACEBACK_LINE = re.compile(r"^((?:[A-Za-z_]\w*\.)+)([A-Za-z_]\w*): (.*)$", re.MULTILINE)


@contextmanager
def carried_to_driver(stage: str) -> Iterator[None]:
    """Run executor-side code so that a cdcwire error leaving it can be rebuilt on the driver;
    ``stage`` (e.g. "the routing stage") goes into a note saying where it was raised."""
    try:
        yield
    except CdcwireError as exc:
        carry(exc, stage)
        raise


def carry(exc: CdcwireError, stage: str = "") -> None:
    """Add the notes that carry ``exc`` to the driver (once: an error already carried is left alone)."""
    notes = [note for note in getattr(exc, "__notes__", ()) if isinstance(note, str)]
    if any(is_carrying(note) for note in notes):
        return
    if stage:
        exc.add_note(f"raised in a Spark task of {stage}")
    message = " ".join(str(exc).split())
    if len(message) > _SHOWN:
        message = message[: _SHOWN - 3] + "..."
    exc.add_note(f"{type(exc).__name__}: {message} {MARKER}{_record(exc)}]")


def is_carrying(note: str) -> bool:
    """Whether ``note`` is the line that carries an error (see :func:`carry`)."""
    return _CARRIED.search(note) is not None


def _record(exc: CdcwireError) -> str:
    """The error as base64 of JSON: class, args, attributes, notes (the carrying note aside)."""
    cls = type(exc)
    args: list[Any] = list(exc.args)
    if not _plain(args):
        args = [str(exc)]  # one argument keeps str() as it was
    attrs = {k: v for k, v in vars(exc).items() if k != "__notes__" and _plain(v)}
    notes = [n for n in getattr(exc, "__notes__", ()) if isinstance(n, str) and not is_carrying(n)]
    record = {"module": cls.__module__, "class": cls.__qualname__, "args": args, "attrs": attrs,
              "notes": notes}
    return base64.b64encode(json.dumps(record, ensure_ascii=True).encode("ascii")).decode("ascii")


def _plain(value: object) -> bool:
    """Whether JSON gives ``value`` back as it is (str, numbers, None, lists and str-keyed dicts of
    them; a tuple comes back a list, so it is not plain). An attribute that is not is left out."""
    try:
        back = json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return False
    return back == value and type(back) is type(value)


def cdcwire_error_in(exc: BaseException) -> Optional[CdcwireError]:
    """The cdcwire error behind a Spark exception, rebuilt, or None.

    The last carried error in the text wins (an error raised while handling another is
    printed after it); without one, the last ``module.Class: message`` line naming a
    cdcwire error class is rebuilt from its message alone (an error raised outside the
    carrying entry points, e.g. in a UDF of the caller's), with the attributes its
    constructor gives a bare message.
    """
    text = str(exc)
    for encoded in reversed(_CARRIED.findall(text)):
        rebuilt = _rebuilt(encoded)
        if rebuilt is not None:
            return rebuilt
    for module, name, message in reversed(_TRACEBACK_LINE.findall(text)):
        cls = _error_class(module.rstrip("."), name)
        if cls is not None:
            return _from_message(cls, message)
    return None


def raised_in_sql(cls: type, message: "Column") -> "Column":
    """A Spark SQL expression that fails the task with ``cls(message)``, as
    :func:`cdcwire_error_in` rebuilds it on the driver: Spark's ``raise_error`` text holds the
    ``module.Class: message`` line on a line of its own (Spark adds its error class before and
    its SQLSTATE after), so a JVM-side check raises the same typed error as the Python one."""
    from pyspark.sql import functions as F

    return F.raise_error(F.concat(F.lit(f"\n{cls.__module__}.{cls.__qualname__}: "), message, F.lit("\n")))


@contextmanager
def cdcwire_errors_raised() -> Iterator[None]:
    """Run driver code that starts Spark jobs: a Spark exception caused by a cdcwire error raises
    that error instead (its Spark wrapper stays reachable as ``__context__``); any other passes."""
    try:
        yield
    except CdcwireError:
        raise
    except Exception as exc:
        err = cdcwire_error_in(exc) or workers_without_cdcwire(exc)
        if err is None:
            raise
        raise err from None


def raise_carried(exc: BaseException) -> NoReturn:
    """Raise the cdcwire error a Spark exception carries, typed, attributes and all; or ``exc``
    itself when it carries none (a lost executor, a bug). For a Spark action of your own over a
    cdcwire frame, which raises Spark's exception with the error only in its text::

        try:
            cs.decode(df, "canal-json").collect()
        except Exception as exc:
            cs.raise_carried(exc)      # raises e.g. cdcwire.foundation.errors.DecodeError

    The Spark exception stays reachable as the raised error's ``__context__``."""
    if isinstance(exc, CdcwireError):
        raise exc
    err = cdcwire_error_in(exc) or workers_without_cdcwire(exc)
    if err is None:
        raise exc
    err.__context__ = exc  # also when called outside the except block that caught it
    raise err from None


_NO_CDCWIRE = re.compile(r"(?:ModuleNotFoundError|No module named)[^\n]*'(cdcwire[\w.]*)'")


def workers_without_cdcwire(exc: BaseException) -> Optional[CdcwireError]:
    """A Spark failure because its Python workers cannot import cdcwire (or a plugin), said so,
    with what to do; else None. A session from :func:`cdcwire.spark.spark_session` has its
    workers run the driver's interpreter; one built by hand runs ``PYSPARK_PYTHON`` or
    ``spark.pyspark.python``, whichever the cluster gives."""
    found = _NO_CDCWIRE.search(str(exc))
    if found is None:
        return None
    module = found.group(1)
    package = "cdcwire" if module.split(".")[0] == "cdcwire" else module.split(".")[0].replace("_", "-")
    return CdcwireError(
        f"Spark's Python workers cannot import {module!r}: they run another Python than this one"
        f" ({sys.executable}). Install {package} where the workers' Python is (PYSPARK_PYTHON or"
        " spark.pyspark.python); on one machine, leave PYSPARK_PYTHON unset and build the session"
        " with cdcwire.spark.spark_session(), which points the workers at this interpreter"
    )


#: The exit code of a Spark JVM that an OutOfMemoryError ended (Spark's ``SparkExitCode.OOM``):
#: a task thread's OutOfMemoryError makes Spark end its JVM, so the driver is left with a
#: refused connection ("[Errno 111] Connection refused") and no word of why.
JVM_OUT_OF_MEMORY_EXIT = 52

_JAVA_OOM = re.compile(r"java\.lang\.OutOfMemoryError(?::[ \t]*([^\n]*))?|(GC overhead limit exceeded)")
_PYTHON_OOM = re.compile(r"^MemoryError\b.*$", re.MULTILINE)


@dataclass(frozen=True)
class OutOfMemory:
    """What ran out of memory behind a Spark failure: ``jvm`` (the driver's JVM, which on a local
    master runs the tasks too: ``spark.driver.memory`` sizes it) or ``python`` (a Python worker)."""

    where: str
    detail: str

    def __str__(self) -> str:
        what = "Spark's JVM" if self.where == "jvm" else "a Spark Python worker"
        return f"{what} ran out of memory ({self.detail})"


def out_of_memory_in(exc: BaseException) -> Optional[OutOfMemory]:
    """Whether a Spark failure is a lack of memory, and whose: an OutOfMemoryError (Java heap
    space, GC overhead) or a Python MemoryError anywhere in its text or causes, or a JVM that
    ended with Spark's out-of-memory exit code under the failed call; else None."""
    chain: list[BaseException] = []
    while exc is not None and exc not in chain:
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    text = "\n".join(str(e) for e in chain)
    java = _JAVA_OOM.search(text)
    if java:
        return OutOfMemory("jvm", (java.group(1) or java.group(2) or "java.lang.OutOfMemoryError").strip())
    if any(isinstance(e, MemoryError) for e in chain) or _PYTHON_OOM.search(text):
        return OutOfMemory("python", "MemoryError")
    if _jvm_exit_code() == JVM_OUT_OF_MEMORY_EXIT:
        return OutOfMemory("jvm", f"it ended with exit code {JVM_OUT_OF_MEMORY_EXIT}, java.lang.OutOfMemoryError")
    return None


def _jvm_exit_code() -> Optional[int]:
    """The exit code of the JVM this process started for Spark, if it has ended (else None)."""
    try:
        from pyspark import SparkContext
    except ImportError:
        return None
    proc = getattr(getattr(SparkContext, "_gateway", None), "proc", None)
    return proc.poll() if proc is not None else None


def _rebuilt(encoded: str) -> Optional[CdcwireError]:
    try:
        record = json.loads(base64.b64decode(encoded, validate=True))
        cls = _error_class(str(record["module"]), str(record["class"]))
        args, attrs, notes = list(record["args"]), dict(record["attrs"]), list(record["notes"])
    except (binascii.Error, ValueError, KeyError, TypeError):
        return None
    if cls is None:  # raised by a module the driver has not loaded: the base class, all else kept
        cls = CdcwireError
        notes.append(f"raised as {record['module']}.{record['class']}, which the Spark driver has not loaded")
    err = cls.__new__(cls, *args)  # no __init__: it may want other arguments than args
    err.args = tuple(args)
    for name, value in attrs.items():
        setattr(err, str(name), value)
    for note in notes:
        err.add_note(str(note))
    return err


def _from_message(cls: type[CdcwireError], message: str) -> CdcwireError:
    """``cls`` with ``message`` as its one argument: by its constructor when a message is enough
    (its attributes get their defaults), else bare."""
    try:
        err = cls(message)
    except TypeError:
        err = cls.__new__(cls, message)
    err.args = (message,)
    return err


def _error_class(module: str, qualname: str) -> Optional[type[CdcwireError]]:
    """A CdcwireError subclass by module and name, from a module already loaded (never imported:
    the names come from text that may quote input data)."""
    obj: Any = sys.modules.get(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    if isinstance(obj, type) and issubclass(obj, CdcwireError):
        return obj
    return None


def put_carried_errors_first() -> None:
    """Make a Spark exception that carries a cdcwire error start with that error's one line.

    Why: an action of the user's own over a cdcwire frame (``df.groupBy("kind").count().show()``)
    raises PySpark's exception, whose text is the worker's traceback with the cdcwire error deep
    inside, among a dozen lines and a base64 record. PySpark turns every JVM failure into its
    exception in one function (``pyspark.errors.exceptions.captured.convert_exception``); wrapped
    here (once per process), it puts ``DecodeError: orders/0/4: ...`` on the first line of the
    exception's text, the rest after it as it was (so :func:`raise_carried` still finds the record).
    """
    from pyspark.errors.exceptions import captured

    original = captured.convert_exception
    if getattr(original, "_cdcwire_first", False):
        return

    def convert_exception(e):  # type: ignore[no-untyped-def]
        converted = original(e)
        try:
            err = cdcwire_error_in(converted) if MARKER in str(converted) else None
        except Exception:  # noqa: BLE001 - a text PySpark cannot give: the exception as it was
            err = None
        if err is not None:
            converted._cdcwire_line = f"{type(err).__name__}: {err}"
            converted.__class__ = _first_line_class(type(converted))
        return converted

    convert_exception._cdcwire_first = True  # type: ignore[attr-defined]
    captured.convert_exception = convert_exception


_FIRST_LINE_CLASSES: dict[type, type] = {}


def _first_line_class(cls: type) -> type:
    """``cls`` (a PySpark exception class) whose text starts with the carried error's line: a
    subclass, so ``except PythonException`` and the like still catch it."""
    if cls not in _FIRST_LINE_CLASSES:
        def __str__(self) -> str:  # type: ignore[no-untyped-def]
            return f"{self._cdcwire_line}\n{cls.__str__(self)}"

        _FIRST_LINE_CLASSES[cls] = type(cls.__name__, (cls,), {"__str__": __str__, "__module__": cls.__module__,
                                                                "__qualname__": cls.__qualname__})
    return _FIRST_LINE_CLASSES[cls]
