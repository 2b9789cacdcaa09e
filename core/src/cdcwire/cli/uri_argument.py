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


def source_uri_argument(text: str) -> str:
    """A SOURCE_URI argument (:func:`uri_argument`): a path given where the URI belongs (``cdcwire
    inspect out.bin``) is named as a path with the URIs that read one, instead of being taken for a
    protocol name ("unknown protocol 'out.bin'")."""
    uri = uri_argument(text)
    if "://" in uri or uri.startswith("file:") or not (os.path.exists(uri) or os.sep in uri):
        return uri
    where = os.path.abspath(uri)
    if os.path.isdir(uri):
        topic_dir = any(n.endswith(".cdcwire") for n in os.listdir(uri))  # dir/TOPIC itself
        as_file = f"file://{where}" if topic_dir else f"file://{where}/TOPIC"
        what = (f"{uri!r} is a directory, not a source URI: read what cdcwire wrote there as"
                f" {as_file}?protocol=NAME{'' if topic_dir else ' (TOPIC: one of its directories)'},"
                f" a TiCDC storage-sink layout as local://{where}?protocol=csv|canal-json")
    else:
        head, name = os.path.split(where)
        stem, ext = os.path.splitext(name)
        if ext == ".cdcwire" and stem.isdigit():  # dir/TOPIC/P.cdcwire: a file:// partition
            directory, topic = os.path.split(head)
            hint = f"read it as file://{directory}/{topic}?protocol=NAME --partition {stem}"
        else:
            hint = ("cdcwire reads messages from a source URI: file:///DIR/TOPIC?protocol=NAME (a directory"
                    " cdcwire wrote: DIR/TOPIC/P.cdcwire), kafka://HOST:PORT/TOPIC?protocol=NAME, or a storage-sink"
                    " layout local:///DIR?protocol=csv|canal-json")
        what = f"{uri!r} is {'a file' if os.path.exists(uri) else 'a path'}, not a source URI: {hint}"
    raise argparse.ArgumentTypeError(what)
