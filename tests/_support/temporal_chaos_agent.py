"""The agent of the durable chaos runs (``temporal_chaos``): a scripted model and two tools.

A prompt ``chaos:<tag>:<turns>:<work_ms>`` makes the model call two tools in each of ``turns``
turns, then answer: ``record`` (the docs' exactly-once example,
``docs/examples/temporal_exactly_once.py``: its effect, a ledger row, is stored in one SQLite
transaction with the call's idempotency key; the ledger's account is the run's tag, its cents
the step) and ``work`` (sleeps ``work_ms``, a
slow tool when it is large). The model is a pure function of the conversation, so a retried
call answers the same. Every tool execution and model call appends a line to the log:
``<what> <phase> <key> <attempt> <pid> <unix time>``, appended in one ``write`` (whole lines
from several processes).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

from pi_sdk_temporal import durable_tool_call, idempotency_key

import pi_sdk
from _support.temporal_agent import message_text
from pi_sdk.testing import ScriptedCall, ScriptedProvider, ScriptedReply
from pi_sdk.types import ToolCall

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "examples"))

from temporal_exactly_once import open_ledger, record_once  # noqa: E402 - the docs' example


def prompt(tag: str, turns: int, work_ms: int) -> str:
    return f"chaos:{tag}:{turns}:{work_ms}"


def answer(tag: str, turns: int) -> str:
    """The final answer of a run that went right."""
    return f"done {tag} after {turns} turns"


def log_event(log: Path, *fields: object) -> None:
    line = " ".join(str(f) for f in (*fields, os.getpid(), f"{time.time():.6f}")) + "\n"
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


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


def brain(call: ScriptedCall) -> ScriptedReply | str:
    """Turn ``k`` (one more than the last assistant message's ``t<k-1>-...`` calls) calls the
    tools; after ``turns`` turns, the answer. The context may be cut (``temporal_recent``)."""
    messages = call.messages
    _, tag, turns, work_ms = message_text(messages[0]).split(":")
    calls_so_far = [m for m in messages if m.role == "assistant" and m.tool_calls]
    step = int(calls_so_far[-1].tool_calls[0].id[1:].split("-")[0]) + 1 if calls_so_far else 0
    if step >= int(turns):
        return answer(tag, int(turns))
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
