"""``pi-sdk serve``'s options for more than one process and more than one key.

``--workers N`` (:mod:`pi_sdk._serve.workers`), ``--keys-file FILE`` (named bearer keys),
``--rate-limit COUNT/PERIOD`` and ``--usage-db FILE`` (the per-key limit and usage counters the
workers share: :mod:`pi_sdk._serve.usage_store`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

__all__ = ["add_scale_options", "read_keys", "run_server", "usage_store"]

USAGE_DB = "serve-usage.sqlite"
"""The usage database's file name in the CLI's data folder (``--usage-db`` overrides)."""


def add_scale_options(serve: argparse.ArgumentParser) -> None:
    """Add ``--workers``, ``--keys-file``, ``--rate-limit`` and ``--usage-db``."""
    serve.add_argument(
        "--workers", type=int, default=1, metavar="N",
        help="server processes on the one port (default 1; POSIX)",
    )  # fmt: skip
    serve.add_argument(
        "--keys-file", type=Path, metavar="FILE",
        help='more bearer keys, a JSON object {"name": "token", ...} (each limited and counted)',
    )  # fmt: skip
    serve.add_argument(
        "--rate-limit", metavar="COUNT/PERIOD",
        help="requests per key, over every worker: e.g. 600/min, 10/s, 5000/h",
    )  # fmt: skip
    serve.add_argument(
        "--usage-db", type=Path, metavar="FILE",
        help=f"SQLite file of the per-key limit and usage (default <data dir>/{USAGE_DB})",
    )  # fmt: skip


def read_keys(path: Path) -> dict[str, str]:
    """The ``--keys-file``: ``{"name": "token"}``.

    Raises:
        ValueError: unreadable, not JSON, or not an object of strings (never quoting a token).
    """
    try:
        data: Any = json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read --keys-file {path}: {exc.strerror}") from None
    except ValueError:
        raise ValueError(f"--keys-file {path} is not JSON") from None  # the text holds tokens
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in cast("dict[Any, Any]", data).items()
    ):
        raise ValueError(f'--keys-file {path}: expected a JSON object {{"name": "token", ...}}')
    return {name: token.strip() for name, token in cast("dict[str, str]", data).items()}


def usage_store(args: argparse.Namespace) -> Any:
    """The :class:`~pi_sdk._serve.usage_store.UsageStore` the options ask for, created; or None.

    Raises:
        ValueError: a bad ``--rate-limit`` or ``--workers``, or a database that cannot open.
    """
    import sqlite3

    from pi_sdk._serve.usage_store import UsageStore, parse_rate_limit

    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    if args.workers > 1 and not hasattr(os, "fork"):
        raise ValueError("--workers needs POSIX (fork); on Windows run one server per port")
    if args.rate_limit is None and args.usage_db is None:
        return None
    rate_limit = parse_rate_limit(args.rate_limit) if args.rate_limit else None
    path = args.usage_db
    if path is None:
        from pi_sdk._cli.paths import data_dir, private_dir

        path = private_dir(data_dir()) / USAGE_DB
    store = UsageStore(path, rate_limit=rate_limit)
    try:
        store.create()
    except sqlite3.Error as exc:
        raise ValueError(f"cannot open the usage database {path}: {exc}") from None
    return store


def run_server(config: Any, args: argparse.Namespace, quiet: Callable[[Any], None]) -> int:
    """Serve ``config`` (a ``uvicorn.Config``): in this process, or ``--workers`` forked ones."""
    import uvicorn

    def serve(sockets: list[Any] | None) -> int:
        async def main() -> None:
            quiet(asyncio.get_running_loop())
            await uvicorn.Server(config).serve(sockets=sockets)

        asyncio.run(main())
        return 0

    from pi_sdk._serve.workers import Supervisor, listening_socket

    try:  # bound here for one worker too: a port in use is the same line and status either way
        sock = listening_socket(args.host, args.port)
    except OSError as exc:
        sys.stderr.write(f"pi-sdk serve: error: cannot listen on {args.host}:{args.port}: {exc}\n")
        return 1
    if args.workers == 1:
        with sock:
            return serve([sock])
    return Supervisor(lambda shared: serve([shared]), sock, args.workers).run()
