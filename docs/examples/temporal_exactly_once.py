"""A durable tool whose effect happens exactly once, even when its worker is killed mid-call.

Temporal runs a tool call again when its worker died before the result was recorded (the call
may have done its work already). The call's idempotency key, the same on every attempt and on
no other call, makes the effect safe to repeat: it is stored in the same transaction as the
effect, and a second attempt finds it and does nothing. Here the effect is a row in a SQLite
ledger (any database with transactions does the same; for a vendor's API, send the key as its
``Idempotency-Key`` header). ``tests/temporal/test_temporal_chaos.py`` runs this code while a
chaos loop SIGKILLs the workers: one row per call, however often calls ran again.
"""

import sqlite3
from pathlib import Path

from pi_sdk_temporal import idempotency_key

import pi_sdk


def open_ledger(path: Path) -> sqlite3.Connection:
    """The ledger; WAL mode lets several worker processes write it."""
    db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(
        "CREATE TABLE IF NOT EXISTS ledger (key TEXT PRIMARY KEY, account TEXT NOT NULL,"
        " cents INTEGER NOT NULL)"
    )
    return db


def record_once(db: sqlite3.Connection, key: str, account: str, cents: int) -> bool:
    """Store the effect with its key in one transaction; False if it was stored already."""
    with db:  # BEGIN ... COMMIT: the row and its key together, or neither
        cursor = db.execute(
            "INSERT INTO ledger (key, account, cents) VALUES (?, ?, ?)"
            " ON CONFLICT (key) DO NOTHING",
            (key, account, cents),
        )
    return cursor.rowcount == 1


def ledger_tool(path: Path) -> pi_sdk.AgentTool:
    """The tool to register on every worker: ``AgentRegistry(tools=[ledger_tool(path)])``."""
    db = open_ledger(path)

    @pi_sdk.tool
    async def charge(account: str, cents: int) -> str:
        """Charge an account, once per tool call."""
        new = record_once(db, idempotency_key(), account, cents)
        return f"charged {account} {cents} cents" + ("" if new else " (already done)")

    return charge
