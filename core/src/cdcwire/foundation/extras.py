"""Optional dependencies, the extras of the ``cdcwire`` distribution, imported with an error
that says what to install.

A user who installed ``cdcwire cdcwire-open`` and then names a ``kafka://`` URI or runs
``cdcwire run`` should read "install cdcwire[kafka]", not a 19-line ModuleNotFoundError.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from .errors import CdcwireError

#: The top-level modules each extra brings (see core/pyproject.toml).
EXTRA_MODULES: dict[str, frozenset[str]] = {
    "kafka": frozenset({"confluent_kafka"}),
    "spark": frozenset({"pyspark", "pyarrow", "pandas", "numpy"}),
    "compression": frozenset({"cramjam"}),
    "claim-check": frozenset({"fsspec", "s3fs", "aiobotocore", "botocore"}),
    "delta": frozenset({"deltalake"}),
    "iceberg": frozenset({"pyiceberg", "sqlalchemy"}),
}


class MissingExtraError(CdcwireError):
    """A feature needs an extra that is not installed."""


@contextlib.contextmanager
def extra_required(extra: str, what: str) -> Iterator[None]:
    """Run imports for ``what``; a module of ``extra`` that is missing becomes a
    MissingExtraError naming the ``pip install`` that brings it."""
    try:
        yield
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        if top not in EXTRA_MODULES[extra]:
            raise
        raise MissingExtraError(
            f"{what} needs {top}, which is not installed: pip install 'cdcwire[{extra}]'"
        ) from None
