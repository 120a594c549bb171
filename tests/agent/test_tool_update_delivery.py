"""Every update a tool pushes reaches the listeners before that call's ``tool_execution_end``.

pi-agent-core 1.6 (``executePreparedToolCall``): the ``onUpdate`` events of a call are awaited
before the call finishes, whichever way the tool ends. A UI that shows a tool's progress and
then its result relies on that order; a listener that awaits (writes to a socket, a slow
terminal) must not see the end first. The states covered: the tool returns, returns an error
result, raises; pushes no update, one, several; runs on the loop or as a sync function in a
worker thread (updates then cross threads); is aborted and cancelled after the grace period,
pushing one more update while it cleans up; calls run in parallel or one after another.
The listener here yields to the loop several times per update, as a slow one does.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from _support.agent import config, isolated_plugins, user  # noqa: F401

import pi_sdk
from pi_sdk import AgentContext, AgentTool, AgentToolResult
from pi_sdk._agent.loop import run_agent_loop
from pi_sdk._agent.tool_calls import ABORTED_TEXT
from pi_sdk._wire.agent_types import AgentEvent
from pi_sdk.testing import ScriptedProvider, ScriptedReply

MODES = ["parallel", "sequential"]
TOOL_EVENTS = ("tool_execution_start", "tool_execution_update", "tool_execution_end")


class SlowListener:
    """Records tool events once handled; an update takes several turns of the loop."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []

    async def __call__(self, event: AgentEvent) -> None:
        if event.type not in TOOL_EVENTS:
            return
        if event.type == "tool_execution_update":
            for _ in range(5):
                await asyncio.sleep(0)
            detail = _text(event.partial_result)
        elif event.type == "tool_execution_end":
            detail = ("error: " if event.is_error else "ok: ") + _text(event.result)
        else:
            detail = ""
        self.seen.append((event.tool_call_id, event.type.removeprefix("tool_execution_"), detail))

    def after_tool_call(self, context: Any, signal: Any) -> None:
        """The ``after_tool_call`` hook: logged where it runs among the events."""
        self.seen.append((context.tool_call.id, "after_tool_call", _text(context.result)))

    def of(self, call_id: str) -> list[tuple[str, str]]:
        return [(kind, detail) for cid, kind, detail in self.seen if cid == call_id]


def _text(result: AgentToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def _tool(execute: Callable[..., Any]) -> AgentTool:
    return AgentTool(name="work", description="Work.", parameters={}, execute=execute)


async def _run(tool: AgentTool, mode: str, calls: int = 2, **options: Any) -> SlowListener:
    content = [pi_sdk.ToolCall(id=f"tool-{n}", name=tool.name, arguments={}) for n in range(calls)]
    provider = ScriptedProvider([ScriptedReply(content=content), "done"])
    listener = SlowListener()
    await run_agent_loop(
        [user("go")],
        AgentContext(tools=[tool]),
        config(provider, tool_execution=mode, after_tool_call=listener.after_tool_call, **options),
        listener,
    )
    return listener


def _updates(*texts: str) -> list[tuple[str, str]]:
    return [("update", text) for text in texts]


def _finished(text: str, *, error: bool = False) -> list[tuple[str, str]]:
    """``after_tool_call`` sees the result, then the end event carries it."""
    return [("after_tool_call", text), ("end", ("error: " if error else "ok: ") + text)]


def _each_call(listener: SlowListener, updates: list[str], end: list[tuple[str, str]]) -> None:
    """Both calls saw: start, the updates in order, ``after_tool_call``, end."""
    for call in ("tool-0", "tool-1"):
        steps = _updates(*(update.format(call=call) for update in updates))
        ending = [(kind, detail.format(call=call)) for kind, detail in end]
        assert listener.of(call) == [("start", ""), *steps, *ending]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("count", [0, 1, 3])
async def test_updates_of_a_tool_that_returns_come_before_its_end(mode: str, count: int):
    async def execute(call_id, args, signal, on_update):
        for n in range(count):
            on_update(AgentToolResult.text(f"{call_id} step {n}"))
        return AgentToolResult.text(f"{call_id} done")

    listener = await _run(_tool(execute), mode)
    _each_call(listener, [f"{{call}} step {n}" for n in range(count)], _finished("{call} done"))


@pytest.mark.parametrize("mode", MODES)
async def test_updates_of_a_tool_that_returns_an_error_result_come_before_its_end(mode: str):
    async def execute(call_id, args, signal, on_update):
        on_update(AgentToolResult.text("trying"))
        on_update(AgentToolResult.text("giving up"))
        return AgentToolResult(content=[pi_sdk.TextContent(text="no luck")], is_error=True)

    listener = await _run(_tool(execute), mode)
    _each_call(listener, ["trying", "giving up"], _finished("no luck", error=True))


@pytest.mark.parametrize("mode", MODES)
async def test_updates_of_a_tool_that_raises_come_before_its_end(mode: str):
    async def execute(call_id, args, signal, on_update):
        on_update(AgentToolResult.text("half way"))
        raise RuntimeError("disk full")

    listener = await _run(_tool(execute), mode)
    _each_call(listener, ["half way"], _finished("disk full", error=True))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("raises", [False, True])
async def test_updates_a_sync_tool_pushes_from_its_thread_come_before_its_end(
    mode: str, raises: bool
):
    @pi_sdk.tool
    def work(on_update: Callable[[AgentToolResult], None]) -> str:
        """Work in a thread."""
        on_update(AgentToolResult.text("from the thread"))
        on_update(AgentToolResult.text("still there"))
        if raises:
            raise ValueError("thread failed")
        return "thread done"

    listener = await _run(work, mode)
    end = _finished("thread failed", error=True) if raises else _finished("thread done")
    _each_call(listener, ["from the thread", "still there"], end)


@pytest.mark.parametrize("mode", MODES)
async def test_an_aborted_tools_updates_even_while_it_is_cancelled_come_before_its_end(mode: str):
    """The tool ignores the abort; cancelled after the grace period, it reports its clean-up."""
    controller = pi_sdk.AbortController()
    started: list[str] = []

    async def execute(call_id, args, signal, on_update):
        on_update(AgentToolResult.text(f"{call_id} waiting"))
        started.append(call_id)
        if len(started) == (2 if mode == "parallel" else 1):  # every call that runs has started
            controller.abort()
        try:
            await asyncio.Event().wait()
        finally:
            on_update(AgentToolResult.text(f"{call_id} cleaning up"))
        return AgentToolResult.text("never")

    content = [pi_sdk.ToolCall(id=f"tool-{n}", name="work", arguments={}) for n in range(2)]
    provider = ScriptedProvider([ScriptedReply(content=content), "never"])
    listener = SlowListener()
    await run_agent_loop(
        [user("go")],
        AgentContext(tools=[_tool(execute)]),
        config(
            provider,
            tool_execution=mode,
            tool_abort_grace_ms=0,
            after_tool_call=listener.after_tool_call,
        ),
        listener,
        signal=controller.signal,
    )
    abandoned = _finished(
        "Tool work did not stop within 0 s after the run was aborted; it was cancelled"
        " (a tool running in a thread is left behind and its result dropped).",
        error=True,
    )
    assert listener.of("tool-0") == [
        ("start", ""),
        *_updates("tool-0 waiting", "tool-0 cleaning up"),
        *abandoned,
    ]
    if mode == "parallel":  # both ran and were cancelled
        assert listener.of("tool-1") == [
            ("start", ""),
            *_updates("tool-1 waiting", "tool-1 cleaning up"),
            *abandoned,
        ]
    else:  # the second never ran
        assert listener.of("tool-1") == [("start", ""), ("end", f"error: {ABORTED_TEXT}")]


# --- updates after the call ended are dropped (pi-agent-core 1.6 ``acceptingUpdates``) ----------


async def test_an_update_pushed_after_the_tool_returned_is_dropped():
    kept: list[Callable[[AgentToolResult], None]] = []

    async def execute(call_id, args, signal, on_update):
        on_update(AgentToolResult.text("in time"))
        kept.append(on_update)
        return AgentToolResult.text("done")

    provider = ScriptedProvider([ScriptedReply.tool_call("work"), "done"])
    seen: list[str] = []

    async def sink(event: AgentEvent) -> None:
        seen.append(event.type)

    tool = _tool(execute)
    await run_agent_loop([user("go")], AgentContext(tools=[tool]), config(provider), sink)
    kept[0](AgentToolResult.text("too late"))
    for _ in range(5):
        await asyncio.sleep(0)
    assert seen[-1] == "agent_end"
    tool_events = [kind for kind in seen if kind.startswith("tool_execution")]
    assert tool_events == list(TOOL_EVENTS)


async def test_an_update_from_a_thread_left_behind_after_an_abort_is_dropped():
    controller = pi_sdk.AbortController()
    release, finished = threading.Event(), threading.Event()

    @pi_sdk.tool
    def stuck(on_update: Callable[[AgentToolResult], None]) -> str:
        """Block until released, ignoring the abort."""
        on_update(AgentToolResult.text("blocked"))
        controller.abort()
        release.wait(10)
        on_update(AgentToolResult.text("released"))
        finished.set()
        return "late"

    provider = ScriptedProvider([ScriptedReply.tool_call("stuck"), "never"])
    listener = SlowListener()
    await run_agent_loop(
        [user("go")],
        AgentContext(tools=[stuck]),
        config(provider, tool_abort_grace_ms=0, after_tool_call=listener.after_tool_call),
        listener,
        signal=controller.signal,
    )
    release.set()
    assert await asyncio.to_thread(finished.wait, 10)
    for _ in range(5):
        await asyncio.sleep(0)
    assert listener.of("call_1") == [
        ("start", ""),
        *_updates("blocked"),
        *_finished(
            "Tool stuck did not stop within 0 s after the run was aborted; it was cancelled"
            " (a tool running in a thread is left behind and its result dropped).",
            error=True,
        ),
    ]


async def test_an_update_pushed_from_a_worker_thread_reaches_the_listener_while_the_tool_runs():
    # The update is handed to the loop's thread (call_soon_threadsafe wakes the loop): a tool
    # that waits in its thread for the listener to have the update is not left waiting. The
    # loop in debug mode refuses a task made from another thread, as the hand-off must not.
    asyncio.get_running_loop().set_debug(True)
    heard = threading.Event()
    loop_thread = threading.get_ident()
    listener_threads: list[int] = []

    @pi_sdk.tool
    def work(on_update: Callable[[AgentToolResult], None]) -> str:
        """Work in a thread."""
        on_update(AgentToolResult.text("halfway"))
        return "heard" if heard.wait(10) else "never heard"

    async def listener(event: AgentEvent) -> None:
        if event.type == "tool_execution_update":
            listener_threads.append(threading.get_ident())
            heard.set()

    provider = ScriptedProvider(
        [ScriptedReply(content=[pi_sdk.ToolCall(id="t1", name="work", arguments={})]), "done"]
    )
    ends: list[str] = []

    async def sink(event: AgentEvent) -> None:
        await listener(event)
        if event.type == "tool_execution_end":
            ends.append(_text(event.result))

    await run_agent_loop([user("go")], AgentContext(tools=[work]), config(provider), sink)
    assert ends == ["heard"]
    assert listener_threads == [loop_thread]
