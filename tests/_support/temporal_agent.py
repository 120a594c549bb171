"""The agent the Temporal tests run, the same in a worker process and on a plain ``Agent``.

Tools append one line per start and end to a log file (``<tool> <phase> <call id> <pid>``), so
a test counts executions across worker processes. The scripted model is a pure function of
the conversation (a restarted worker answers the same): a prompt ``tools:<tag>:<a>,<b>`` calls
those tools with ids ``<tag>-<tool>``, after a signed thinking block; tool results are answered
``results: ...``; ``hang`` streams some text and waits for the abort; ``history`` describes
the assistant messages the model was sent (after the provider's history transform); anything
else is echoed.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pi_sdk
from pi_sdk import AbortSignal
from pi_sdk.testing import ScriptedCall, ScriptedProvider, ScriptedReply
from pi_sdk.types import TextContent, ThinkingContent, ToolCall


def arguments(tool: str, tag: str) -> dict[str, Any]:
    """The scripted model's arguments for ``tool`` in the run tagged ``tag``."""
    if tool == "add":
        return {"a": "2", "b": 3}  # "2": coerced to 2 by validation, in the workflow as in the loop
    if tool == "weather":
        return {"city": "Paris"}
    if tool == "gate":
        return {"name": tag}  # the run's own gate: gates/<tag>
    return {}


def log_line(log: Path, *fields: object) -> None:
    with log.open("a", encoding="utf-8") as out:
        out.write(" ".join(str(f) for f in fields) + "\n")


def log_lines(log: Path, tag: str | None = None) -> list[list[str]]:
    """The log's lines split in fields; with ``tag``, the lines of that run's tool calls."""
    if not log.exists():
        return []
    lines = [line.split() for line in log.read_text("utf-8").splitlines()]
    if tag is None:
        return lines
    return [line for line in lines if line[2].startswith(f"{tag}-")]


def count(log: Path, tool: str, phase: str, tag: str | None = None) -> int:
    """How many ``<tool> <phase>`` lines the log has (of the run tagged ``tag``)."""
    return sum(1 for line in log_lines(log, tag) if line[0] == tool and line[1] == phase)


def make_tools(log: Path, gates: Path) -> list[pi_sdk.AgentTool]:
    """add, weather, gate (blocks until ``gates/<name>`` exists or the run aborts) and fail."""

    def mark(name: str, phase: str, call_id: str) -> None:
        log_line(log, name, phase, call_id, os.getpid())

    @pi_sdk.tool
    async def add(a: int, b: int, tool_call_id: str) -> str:
        """Add two integers."""
        mark("add", "start", tool_call_id)
        mark("add", "end", tool_call_id)
        return str(a + b)

    @pi_sdk.tool
    async def weather(city: str, tool_call_id: str) -> dict[str, Any]:
        """Current weather."""
        mark("weather", "start", tool_call_id)
        mark("weather", "end", tool_call_id)
        return {"city": city, "celsius": 21}

    @pi_sdk.tool
    async def gate(name: str, tool_call_id: str, signal: AbortSignal) -> str:
        """Wait until the gate opens."""
        mark("gate", "start", tool_call_id)
        while not (gates / name).exists() and not signal.aborted:
            await asyncio.sleep(0.05)
        mark("gate", "end", tool_call_id)
        return f"gate {name} passed" if not signal.aborted else "aborted at the gate"

    @pi_sdk.tool
    async def fail(tool_call_id: str) -> str:
        """Always fails."""
        mark("fail", "start", tool_call_id)
        raise RuntimeError("the fail tool failed")

    return [add, weather, gate, fail]


def message_text(message: Any) -> str:
    """The text blocks of a message, joined (its ``content`` when that is a string)."""
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))


def brain(call: ScriptedCall) -> ScriptedReply | str:
    messages = call.messages
    last = messages[-1]
    if last.role == "toolResult":
        results: list[str] = []
        for message in reversed(messages):
            if message.role != "toolResult":
                break
            results.insert(0, f"{message.tool_name}={message_text(message)}")
        return "results: " + "; ".join(results)
    text = message_text(last)
    if text.startswith("tools:"):
        _, tag, names = text.split(":")
        thinking = ThinkingContent(thinking="planning", thinking_signature=f"sig-{tag}")
        calls = [
            ToolCall(id=f"{tag}-{name}", name=name, arguments=arguments(name, tag))
            for name in names.split(",")
        ]
        return ScriptedReply(content=[thinking, *calls])
    if text == "history":
        seen = [
            "+".join(block.type for block in m.content) for m in messages if m.role == "assistant"
        ]
        return f"seen: {'; '.join(seen)} ({call.model.id})"
    if text == "hang":
        return ScriptedReply.until_aborted([TextContent(text="partial answer")])
    return f"echo: {text} ({call.model.id})"


def scripted(model_id: str) -> ScriptedProvider:
    return ScriptedProvider([brain] * 10_000, model_id=model_id)


VOLATILE = {"timestamp", "responseId", "durationMs"}
"""Fields a durable and a plain run may differ in (``durationMs``: a monotonic time, pi-ai 1.6)."""


def comparable(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Transcript JSON without :data:`VOLATILE` fields."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in VOLATILE}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return [strip(m) for m in messages]


async def until(condition: Any, what: str, timeout_s: float = 60) -> None:
    """Poll ``condition()`` every 50 ms; fail naming ``what`` after ``timeout_s``."""
    for _ in range(int(timeout_s / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
