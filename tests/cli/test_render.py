"""How tool outcomes read on the terminal, live and in a ``--continue`` replay."""

from __future__ import annotations

import io
from typing import Any

import pi_sdk
from pi_sdk._cli.render import TurnPrinter, transcript_lines
from pi_sdk.testing import ScriptedProvider, ScriptedReply


async def _run_blocked_and_failing(listener: Any = None) -> list[Any]:
    @pi_sdk.tool
    def rm(path: str) -> str:
        """Remove a file.

        Args:
            path: The file.
        """
        return "removed"

    @pi_sdk.tool
    def boom() -> str:
        """Fail."""
        raise RuntimeError("disk on fire")

    @pi_sdk.tool
    def ok() -> str:
        """Succeed."""
        return "fine"

    def before(context: Any, signal: Any) -> pi_sdk.BeforeToolCallResult | None:
        if context.tool_call.name == "rm":
            return pi_sdk.BeforeToolCallResult(block=True, reason="not allowed")
        return None

    replies = [
        ScriptedReply.tool_call("rm", {"path": "/"}),
        ScriptedReply.tool_call("boom", {}),
        ScriptedReply.tool_call("ok", {}),
        "done",
    ]
    provider = ScriptedProvider(replies)
    agent = pi_sdk.Agent(model=provider.model, tools=[rm, boom, ok], before_tool_call=before)
    if listener is not None:
        agent.subscribe(listener)
    await agent.prompt("go")
    return agent.messages


async def test_a_replay_marks_a_failed_tool_and_a_blocked_one():
    lines = [text for text, _ in transcript_lines(await _run_blocked_and_failing())]
    assert "⊘ rm blocked: not allowed" in lines
    assert "✘ boom failed: disk on fire" in lines
    assert "✔ ok → fine" in lines


async def test_a_blocked_call_reads_blocked_live_too():
    from rich.console import Console

    out = io.StringIO()
    printer = TurnPrinter(Console(file=out, highlight=False, width=200))
    await _run_blocked_and_failing(printer)
    said = out.getvalue()
    assert "⊘ rm blocked: not allowed" in said
    assert "✘ boom failed: disk on fire" in said


async def test_a_blocked_calls_result_says_so_in_its_details():
    messages = await _run_blocked_and_failing()
    results = {m.tool_name: m for m in messages if isinstance(m, pi_sdk.ToolResultMessage)}
    assert results["rm"].details == {"blocked": True}
    assert results["boom"].details == {}  # a failure that ran: no mark
