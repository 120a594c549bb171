"""Per-key rate limits and usage counters that every worker of one host shares: SQLite, WAL.

``pi-sdk serve --workers N`` runs N processes on one port; a limit counted in each process
alone would let a key make N times its share. :class:`UsageStore` keeps the counts in one
SQLite database file in WAL mode, which every worker opens:

* **a rate limit per key** (:class:`RateLimit`, e.g. 600 requests a minute): a sliding log, the
  time of each admitted request within the last window. A request is admitted when fewer than
  ``requests`` were admitted in the last ``window_s`` seconds, checked and recorded in one
  ``BEGIN IMMEDIATE`` transaction (SQLite's write lock, across processes), so N workers
  together admit exactly the limit. A refused request is answered 429 with ``Retry-After``:
  when the oldest admitted request leaves the window.
* **usage counters per key**: requests, refusals, errors, tokens (input, output, cache read,
  cache write) and cost in USD (the model's prices, as ``Usage.cost`` reports them), added
  when a call ends; ``GET /api/usage`` answers a key its own.

Why SQLite: the standard library has it (no service to run or install), its locks hold across
the processes of one host, and WAL lets readers work while one writer commits. It is one host's
store: several hosts behind a balancer each count their own (give each its share of a key's
limit), or share counts through a networked store with the same two methods.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_sdk.types import Usage

__all__ = ["KeyUsage", "RateLimit", "UsageStore", "parse_rate_limit"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS admitted (key TEXT NOT NULL, at REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS admitted_key_at ON admitted (key, at)",
    "CREATE TABLE IF NOT EXISTS usage (key TEXT PRIMARY KEY, requests INTEGER NOT NULL DEFAULT 0,"
    " refused INTEGER NOT NULL DEFAULT 0, errors INTEGER NOT NULL DEFAULT 0,"
    " input INTEGER NOT NULL DEFAULT 0, output INTEGER NOT NULL DEFAULT 0,"
    " cache_read INTEGER NOT NULL DEFAULT 0, cache_write INTEGER NOT NULL DEFAULT 0,"
    " cost REAL NOT NULL DEFAULT 0)",
)

_PERIODS = {"s": 1.0, "sec": 1.0, "min": 60.0, "m": 60.0, "h": 3600.0, "hour": 3600.0}


@dataclass(frozen=True, kw_only=True)
class RateLimit:
    """At most ``requests`` admitted per key in any ``window_s`` seconds.

    Raises:
        ValueError: ``requests`` below 1 or a window that is not positive.
    """

    requests: int
    window_s: float = 60.0

    def __post_init__(self) -> None:
        if self.requests < 1 or not self.window_s > 0:
            raise ValueError(
                f"a rate limit needs at least 1 request in a positive window, got"
                f" {self.requests} per {self.window_s} s"
            )

    def __str__(self) -> str:
        return f"{self.requests} requests per {self.window_s:g} s"


def parse_rate_limit(text: str) -> RateLimit:
    """``"600/min"``, ``"10/s"``, ``"5000/h"`` as a :class:`RateLimit`.

    Raises:
        ValueError: not ``<count>/<s|min|h>``.
    """
    match = re.fullmatch(r"\s*(\d+)\s*/\s*([a-z]+)\s*", text)
    if match is None or match.group(2) not in _PERIODS:
        raise ValueError(
            f"a rate limit is COUNT/PERIOD with PERIOD s, min or h (600/min); got {text!r}"
        )
    return RateLimit(requests=int(match.group(1)), window_s=_PERIODS[match.group(2)])


@dataclass(frozen=True, kw_only=True)
class KeyUsage:
    """What one key used, summed over every worker (tokens; ``cost`` in USD)."""

    key: str
    requests: int = 0
    """Calls admitted and streamed (whatever their outcome)."""
    refused: int = 0
    """Calls refused by the rate limit (429)."""
    errors: int = 0
    """Calls that ended with an error (the vendor's, or a stream function's)."""
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """Pi's field names: ``{"key", "requests", ..., "cacheRead", "cacheWrite", "cost"}``."""
        return {
            "key": self.key, "requests": self.requests, "refused": self.refused,
            "errors": self.errors, "input": self.input, "output": self.output,
            "cacheRead": self.cache_read, "cacheWrite": self.cache_write,
            "totalTokens": self.input + self.output + self.cache_read + self.cache_write,
            "cost": self.cost,
        }  # fmt: skip


class UsageStore:
    """Rate-limit windows and usage counters per key in one SQLite file (module docstring).

    Open one per process (the file is shared); the connection opens on first use, so a store
    made before ``fork()`` is safe to use in the children. Calls run in a thread: SQLite waits
    for the other processes' locks (up to ``busy_timeout_s``) without blocking the event loop.

    Args:
        path: The database file (created with its tables if missing).
        rate_limit: Per key; ``None``: count usage only.
        busy_timeout_s: How long to wait for another process's write lock.
    """

    def __init__(
        self, path: str | Path, *, rate_limit: RateLimit | None = None, busy_timeout_s: float = 30
    ) -> None:
        self.path = Path(path)
        self.rate_limit = rate_limit
        self._busy_timeout_s = busy_timeout_s
        self._db: sqlite3.Connection | None = None
        self._pid = 0
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        import os

        if self._db is None or self._pid != os.getpid():  # a forked child opens its own
            db = sqlite3.connect(
                self.path, timeout=self._busy_timeout_s, isolation_level=None,
                check_same_thread=False,
            )  # fmt: skip
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            for statement in _SCHEMA:
                db.execute(statement)
            self._db, self._pid = db, os.getpid()
        return self._db

    def create(self) -> None:
        """Create the file and its tables now (so that a bad path fails at startup)."""
        with self._lock:
            self._connection()

    async def admit(self, key: str) -> float | None:
        """Admit one request of ``key``: ``None``, or the seconds until one would be admitted.

        A refusal is counted in the key's usage (``refused``).
        """
        if self.rate_limit is None:
            return None
        return await asyncio.to_thread(self._admit, key, time.time())

    def _admit(self, key: str, now: float) -> float | None:
        limit = self.rate_limit
        assert limit is not None
        with self._lock:
            db = self._connection()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(
                    "DELETE FROM admitted WHERE key = ? AND at <= ?", (key, now - limit.window_s)
                )
                count, oldest = db.execute(
                    "SELECT COUNT(*), MIN(at) FROM admitted WHERE key = ?", (key,)
                ).fetchone()
                if count < limit.requests:
                    db.execute("INSERT INTO admitted (key, at) VALUES (?, ?)", (key, now))
                    wait = None
                else:
                    self._add(db, key, refused=1)
                    wait = max(0.0, oldest + limit.window_s - now)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return wait

    async def record(self, key: str, usage: Usage | None, *, error: bool) -> None:
        """Add one finished call of ``key``: its usage (``None``: none reported), failed or not."""
        await asyncio.to_thread(self._record, key, usage, error)

    def _record(self, key: str, usage: Usage | None, error: bool) -> None:
        with self._lock:
            db = self._connection()
            u = usage or Usage()
            self._add(
                db, key, requests=1, errors=int(error), input=u.input, output=u.output,
                cache_read=u.cache_read, cache_write=u.cache_write, cost=u.cost.total,
            )  # fmt: skip

    @staticmethod
    def _add(db: sqlite3.Connection, key: str, **counts: float) -> None:
        names = ", ".join(counts)
        values = ", ".join("?" for _ in counts)
        updates = ", ".join(f"{name} = {name} + excluded.{name}" for name in counts)
        db.execute(
            f"INSERT INTO usage (key, {names}) VALUES (?, {values})"  # noqa: S608 - our names
            f" ON CONFLICT (key) DO UPDATE SET {updates}",
            (key, *counts.values()),
        )

    async def usage(self, key: str) -> KeyUsage:
        """The counters of ``key`` over every worker (zeros for a key never seen)."""
        return await asyncio.to_thread(self.usage_now, key)

    def usage_now(self, key: str) -> KeyUsage:
        """:meth:`usage`, blocking (for scripts and tests)."""
        with self._lock:
            row = (
                self._connection()
                .execute(
                    "SELECT requests, refused, errors, input, output, cache_read, cache_write,"
                    " cost FROM usage WHERE key = ?",
                    (key,),
                )
                .fetchone()
            )
        if row is None:
            return KeyUsage(key=key)
        requests, refused, errors, input_, output, cache_read, cache_write, cost = row
        return KeyUsage(
            key=key, requests=requests, refused=refused, errors=errors, input=input_,
            output=output, cache_read=cache_read, cache_write=cache_write, cost=cost,
        )  # fmt: skip
