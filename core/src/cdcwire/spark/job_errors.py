"""Errors raised on executors come back as Spark exceptions holding a Python traceback;
the driver turns a cdcwire error among them back into a plain CdcwireError with its message."""

from __future__ import annotations

import re
from typing import Optional

from ..errors import CdcwireError

_LINE = re.compile(r"^cdcwire\.errors\.(\w+Error): (.*)$", re.MULTILINE)


def cdcwire_error_in(exc: BaseException) -> Optional[CdcwireError]:
    """The last cdcwire error named in an executor's traceback, or None."""
    found = _LINE.findall(str(exc))
    if not found:
        return None
    name, message = found[-1]
    from .. import errors

    cls = getattr(errors, name, CdcwireError)
    if not (isinstance(cls, type) and issubclass(cls, CdcwireError)):
        cls = CdcwireError
    try:
        return cls(message)
    except TypeError:
        return CdcwireError(message)
