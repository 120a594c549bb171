"""The summed usage record of a key (``pi_sdk._serve.usage_store``), counter by counter.

Every counter starts at zero: a key never seen, a key that was only refused and a key with N
calls over several workers (stores on one file) each read back exactly what happened, written
out in full here (never compared with ``KeyUsage``'s own defaults).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_sdk._serve.usage_store import RateLimit, UsageStore
from pi_sdk.types import Cost, Usage

ZERO: dict[str, Any] = {
    "requests": 0, "refused": 0, "errors": 0, "input": 0, "output": 0, "cacheRead": 0,
    "cacheWrite": 0, "totalTokens": 0, "cost": 0.0,
}  # fmt: skip


def _json(store: UsageStore, key: str) -> dict[str, Any]:
    return store.usage_now(key).to_json()


async def test_a_key_never_seen_reads_all_zeros(tmp_path: Path) -> None:
    store = UsageStore(tmp_path / "u.sqlite", rate_limit=RateLimit(requests=2))
    assert _json(store, "never") == {"key": "never", **ZERO}
    assert (await store.usage("never")).to_json() == {"key": "never", **ZERO}
    await store.record("other", Usage(input=1), error=False)
    assert _json(store, "never") == {"key": "never", **ZERO}  # another key's row is not its


def test_a_key_only_refused_counts_its_refusals_and_nothing_else(tmp_path: Path) -> None:
    store = UsageStore(tmp_path / "u.sqlite", rate_limit=RateLimit(requests=1, window_s=60))
    assert store._admit("busy", 100.0) is None  # noqa: SLF001 - admitted, never recorded
    assert store._admit("busy", 101.0) == pytest.approx(59.0)  # noqa: SLF001
    assert store._admit("busy", 102.0) == pytest.approx(58.0)  # noqa: SLF001
    assert _json(store, "busy") == {"key": "busy", **ZERO, "refused": 2}


@pytest.mark.parametrize("calls", [1, 2, 5])
async def test_n_calls_over_workers_are_summed_exactly(tmp_path: Path, calls: int) -> None:
    path = tmp_path / "u.sqlite"
    workers = [UsageStore(path, rate_limit=RateLimit(requests=100)) for _ in range(2)]
    for number in range(calls):
        usage = Usage(
            input=10 + number, output=3, cache_read=2, cache_write=1,
            cost=Cost(input=0.25, output=0.5, total=0.75),
        )  # fmt: skip
        await workers[number % 2].record("k", usage, error=number == 0)
    await workers[1].record("k", None, error=True)  # a call that reported no usage
    expected_input = sum(10 + number for number in range(calls))
    expected = {
        "key": "k", "requests": calls + 1, "refused": 0, "errors": 2, "input": expected_input,
        "output": 3 * calls, "cacheRead": 2 * calls, "cacheWrite": calls,
        "totalTokens": expected_input + 6 * calls,
    }  # fmt: skip
    for worker in workers:
        got = _json(worker, "k")
        assert got.pop("cost") == pytest.approx(0.75 * calls)
        assert got == expected


def test_create_makes_the_file_and_its_tables_at_once(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "u.sqlite"
    store = UsageStore(path, busy_timeout_s=2.5)
    assert not path.exists()  # the connection opens on first use
    store.create()
    with sqlite3.connect(path) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    assert {"admitted", "usage", "admitted_key_at"} <= tables
    assert mode == "wal"  # readers and the workers' writers do not block each other
    store.create()  # again: the same connection, the tables kept
    assert _json(store, "k") == {"key": "k", **ZERO}


def test_create_fails_at_once_where_the_file_cannot_be(tmp_path: Path) -> None:
    import sqlite3

    with pytest.raises(sqlite3.OperationalError):
        UsageStore(tmp_path / "no-such-folder" / "u.sqlite").create()
