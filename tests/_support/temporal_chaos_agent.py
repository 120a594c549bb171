"""The agent of the durable chaos runs (``temporal_chaos``): a scripted model and two tools.

A prompt ``chaos:<tag>:<turns>:<work_ms>`` makes the model call two tools in each of ``turns``
turns, then answer: ``record`` (the exactly-once example: its effect, a ledger row, is stored
in one SQLite transaction with the call's idempotency key) and ``work`` (sleeps ``work_ms``, a
slow tool when it is large). The model is a pure function of the conversation, so a retried
call answers the same. Every tool execution and model call appends a line to the log:
``<what> <phase> <key> <attempt> <pid> <unix time>``, appended in one ``write`` (whole lines
from several processes).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pi_sdk
from pi_sdk.testing import ScriptedCall, ScriptedProvider, ScriptedReply
from pi_sdk.types import TextContent, ToolCall
from pi_sdk_temporal import durable_tool_call, idempotency_key

LEDGER_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS ledger (key TEXT PRIMARY KEY, run TEXT NOT NULL,"
    " step INTEGER NOT NULL, pid INTEGER NOT NULL)"
)


def prompt(tag: str, turns: int, work_ms: int) -> str:
    return f"chaos:{tag}:{turns}:{work_ms}"


def answer(tag: str, turns: int) -> str:
    """The final answer of a run that went right."""
    return f"done {tag}: " + ", ".join(f"recorded {tag}/{step}" for step in range(turns))


def log_event(log: Path, *fields: object) -> None:
    line = " ".join(str(f) for f in (*fields, os.getpid(), f"{time.time():.6f}")) + "\n"
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def open_ledger(path: Path) -> sqlite3.Connection:
    """The ledger database (WAL: several worker processes write it at once)."""
    db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(LEDGER_SCHEMA)
    return db


def record_once(db: sqlite3.Connection, key: str, run: str, step: int) -> bool:
    """Store the effect under ``key`` in one transaction; False when it was stored already."""
    with db:  # BEGIN ... COMMIT: the row and its key together, or nothing
        cursor = db.execute(
            "INSERT INTO ledger (key, run, step, pid) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (key) DO NOTHING",
            (key, run, step, os.getpid()),
        )
        return cursor.rowcount == 1


def make_tools(log: Path, ledger: Path) -> list[pi_sdk.AgentTool]:
    db = open_ledger(ledger)
    lock = asyncio.Lock()

    def mark(name: str, phase: str) -> None:
        call = durable_tool_call()
        assert call is not None
        log_event(log, name, phase, call.idempotency_key, call.attempt)

    @pi_sdk.tool
    async def record(run: str, step: int) -> str:
        """Record one step of the run in the ledger, exactly once."""
        mark("record", "start")
        async with lock:  # one connection per worker: one transaction at a time
            new = await asyncio.to_thread(record_once, db, idempotency_key(), run, step)
        mark("record", "end" if new else "dedup")
        return f"recorded {run}/{step}"

    @pi_sdk.tool
    async def work(ms: int) -> str:
        """Work for ``ms`` milliseconds."""
        mark("work", "start")
        await asyncio.sleep(ms / 1000)
        mark("work", "end")
        return f"worked {ms} ms"

    return [record, work]


def _text(message: Any) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))


def brain(call: ScriptedCall) -> ScriptedReply | str:
    messages = call.messages
    _, tag, turns, work_ms = _text(messages[0]).split(":")
    step = sum(1 for m in messages if m.role == "assistant")
    if step >= int(turns):
        records = [_text(m) for m in messages if m.role == "toolResult" and m.tool_name == "record"]
        return f"done {tag}: " + ", ".join(records)
    calls = [
        ToolCall(id=f"t{step}-record", name="record", arguments={"run": tag, "step": step}),
        ToolCall(id=f"t{step}-work", name="work", arguments={"ms": int(work_ms)}),
    ]
    return ScriptedReply(content=calls, chunk_size=0)


def scripted() -> ScriptedProvider:
    return ScriptedProvider([brain] * 1_000_000, model_id="chaos")


def logged_stream(log: Path) -> Any:
    """``pi_sdk.stream`` that logs each model call's start (``model start <wf> <attempt>``)."""
    from temporalio import activity

    def stream(model: Any, context: Any, options: Any) -> Any:
        info = activity.info()
        log_event(log, "model", "start", info.workflow_id, info.attempt)
        return pi_sdk.stream(model, context, options)

    return stream
