"""Claim-check and compression against a plain write of the same large rows.

Workload: N rows of shop.doc (id, a ~20 KB text body), written with open-protocol and
canal-json to a file:// sink three ways in the same run:

- plain: max-message-bytes large enough for every row (the baseline);
- claim-check: max-message-bytes=8192, so every row is stored whole in a file:// storage
  (and, with --s3, in a moto S3 server on 127.0.0.1) and a pointer is sent;
- compressed: large-message-handle-compression=snappy / lz4, nothing claim-checked.

Each figure is a rate in rows per second (encode + write, then decode of what was
written) and its ratio to the plain write of the same protocol.

    .venv/bin/python benchmarks/large_messages.py [--rows N] [--repeat R] [--s3]
"""

from __future__ import annotations

import argparse
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def workload(n: int, body_bytes: int = 20_000) -> list[RowChangedEvent]:
    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]

    def body() -> str:  # text that compresses as prose does (a few words repeated)
        out: list[str] = []
        size = 0
        while size < body_bytes:
            word = rng.choice(words) + str(rng.randrange(1000))
            out.append(word)
            size += len(word) + 1
        return " ".join(out)

    return [
        RowChangedEvent(1000 + i, "shop", "doc", (Column("id", ColumnType.BIGINT, KEY, i),
                                                   Column("body", ColumnType.VARCHAR, ColumnFlag.NULLABLE, body())))
        for i in range(n)
    ]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed(events: list[RowChangedEvent], uri: str, repeat: int) -> tuple[float, float]:
    """Best rows/s of (encode + write to the file sink) and of (read + decode) over ``repeat`` runs."""
    best_write = best_read = 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        cdcwire.write(uri, cdcwire.encode(uri, events))
        best_write = max(best_write, len(events) / (time.perf_counter() - start))
        start = time.perf_counter()
        back = cdcwire.decode(uri, cdcwire.read(uri))
        best_read = max(best_read, len(events) / (time.perf_counter() - start))
        assert sum(isinstance(e, RowChangedEvent) for e in back) >= len(events)
    return best_write, best_read


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--s3", action="store_true", help="also claim-check to a moto S3 server on 127.0.0.1")
    args = parser.parse_args()
    events = workload(args.rows)
    work = Path(tempfile.mkdtemp(prefix="cdcwire-large-bench-"))
    server = None
    try:
        storages = {"file": f"file://{work / 'claims'}"}
        if args.s3:  # moto in a process of its own: in this one it would share the GIL with the writer
            import boto3

            port = _free_port()
            server = subprocess.Popen(
                [str(Path(sys.executable).with_name("moto_server")), "-H", "127.0.0.1", "-p", str(port)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            endpoint = f"http://127.0.0.1:{port}"
            client = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="a", aws_secret_access_key="b",
                                  region_name="us-east-1")
            for _ in range(100):
                try:
                    client.create_bucket(Bucket="bench")
                    break
                except Exception:  # noqa: BLE001 - not listening yet
                    time.sleep(0.1)
            storages["s3"] = (f"s3://bench/claims?endpoint={endpoint}&access-key=a&secret-access-key=b"
                              "&region=us-east-1&force-path-style=true")
        print(f"{args.rows} rows of ~20 KB, best of {args.repeat}; rows/s and ratio to the plain write")
        print(f"{'protocol':<14} {'mode':<22} {'write rows/s':>13} {'ratio':>6} {'read rows/s':>12} {'ratio':>6}")
        for protocol, extra in (("open-protocol", ""), ("canal-json", "&enable-tidb-extension=true")):
            base = f"file://{work}/{protocol}/{{name}}?protocol={protocol}{extra}&partition-num=1"
            runs = {"plain": "&max-message-bytes=1048576"}
            for name, storage in storages.items():
                runs[f"claim-check ({name})"] = ("&max-message-bytes=8192&large-message-handle-option=claim-check"
                                                 f"&claim-check-storage-uri={quote(storage, safe='')}")
            runs["snappy"] = "&max-message-bytes=1048576&large-message-handle-compression=snappy"
            runs["lz4"] = "&max-message-bytes=1048576&large-message-handle-compression=lz4"
            plain_write = plain_read = 0.0
            for mode, params in runs.items():
                topic = "".join(ch if ch.isalnum() else "_" for ch in mode)
                uri = base.format(name=topic) + params
                write_rate, read_rate = timed(events, uri, args.repeat)
                if mode == "plain":
                    plain_write, plain_read = write_rate, read_rate
                print(f"{protocol:<14} {mode:<22} {write_rate:>13,.0f} {write_rate / plain_write:>6.2f}"
                      f" {read_rate:>12,.0f} {read_rate / plain_read:>6.2f}")
    finally:
        if server is not None:
            server.terminate()
            server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
