"""A URI argument given on the command line, or read from an environment variable or a file.

A sink URI may hold a password (``kafka://user:password@host/topic``, ``sasl-password=...``),
and a command's arguments are visible to every user of the machine (``ps``, /proc). Every
command argument that takes a URI takes it in one of three forms, read here and nowhere else:

- the URI itself;
- ``env:NAME``: the value of environment variable ``NAME``;
- ``@PATH``: the contents of file ``PATH`` (surrounding whitespace and the final newline dropped).
"""

from __future__ import annotations

import argparse
import os

#: What each URI argument's help says of the two other forms.
FROM_ENV_OR_FILE = "; env:NAME reads it from environment variable NAME, @PATH from a file (neither shows in ps)"


def uri_argument(text: str) -> str:
    """The URI ``text`` stands for (an argparse ``type``): an unset variable, an unreadable or
    empty file is an error naming it, never quoting what was read."""
    if text.startswith("env:"):
        name = text[len("env:"):]
        if not name:
            raise argparse.ArgumentTypeError("env: needs the name of an environment variable (env:NAME)")
        value = os.environ.get(name)
        if value is None:
            raise argparse.ArgumentTypeError(f"environment variable {name!r} is not set (given as env:{name})")
        where = f"environment variable {name!r}"
    elif text.startswith("@"):
        path = text[1:]
        try:
            with open(path, encoding="utf-8") as f:
                value = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
            raise argparse.ArgumentTypeError(f"cannot read the URI from file {path!r}: {reason}") from None
        where = f"file {path!r}"
    else:
        return text
    value = value.strip()
    if not value:
        raise argparse.ArgumentTypeError(f"{where} is empty: it should hold the URI")
    return value
