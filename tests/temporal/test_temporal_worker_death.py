"""SIGKILL the worker mid-tool and mid-model-stream: a new worker finishes the run, and nothing
that completed runs again (tools log their executions; the loopback vendor counts requests)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _support.loopback import LoopbackServer, Step, sse_step
from _support.temporal import WorkerProcess
from _support.temporal_agent import count, log_lines, until
from _support.wire import Call, Calls, Text, Tokens, wire_for
from pi_sdk_temporal import ActivitySettings, AgentRun, AgentRunResult, prompt_input, start_agent

FAST = ActivitySettings(heartbeat_timeout_s=1.5, retry_initial_interval_s=0.2)


def config(address: str, queue: str, files: tuple[Path, Path], **extra: Any) -> dict[str, Any]:
    log, gates = files
    return {"address": address, "task_queue": queue, "log": str(log), "gates": str(gates), **extra}


async def start(client: Any, queue: str, model: str, prompt: str, **fields: Any) -> AgentRun:
    return await start_agent(
        client,
        prompt_input(model, prompt, activities=FAST, **fields),
        id=f"death-{uuid.uuid4().hex}",
        task_queue=queue,
    )


async def kill_and_replace(
    first: WorkerProcess,
    settings: dict[str, Any],
    run: AgentRun,
    after_kill: Callable[[], object] = lambda: None,
) -> AgentRunResult:
    """SIGKILL ``first``, start another worker, wait for the run's result."""
    first.kill()
    after_kill()
    second = await WorkerProcess(settings).ready()
    try:
        return await asyncio.wait_for(run.result(), 60)
    finally:
        second.stop()


@pytest.mark.slow  # two worker processes, one SIGKILLed
async def test_worker_killed_mid_tool(client, temporal_address, task_queue, files) -> None:
    log, gates = files
    first = await WorkerProcess(config(temporal_address, task_queue, files)).ready()
    try:
        run = await start(
            client,
            task_queue,
            "a",
            "tools:k:add,gate",
            tools=["add", "gate"],
            tool_execution="sequential",
        )
        # Sequential: the gate starts once add's result is in the history.
        await until(lambda: count(log, "gate", "start") == 1, "the gate tool to start")
        settings = config(temporal_address, task_queue, files)
        result = await kill_and_replace(first, settings, run, (gates / "k").touch)
    finally:
        first.kill()

    roles = [m["role"] for m in result.messages]
    assert roles == ["user", "assistant", "toolResult", "toolResult", "assistant"]
    assert result.messages[-1]["content"][0]["text"] == "results: add=5; gate=gate k passed"
    assert count(log, "add", "start") == 1 and count(log, "add", "end") == 1
    assert count(log, "gate", "start") == 2  # the interrupted execution, then the retry
    assert count(log, "gate", "end") == 1
    pids = {line[3] for line in log_lines(log) if line[0] == "gate"}
    assert len(pids) == 2
    # Each model call completed once: the one asking for the tools, the one answering them.
    assert count(log, "stream", "done") == 2


def anthropic(blocks: list[Any]) -> list[Any]:
    body, terminal = wire_for("anthropic-messages").events(blocks, Tokens())
    return body + terminal


@pytest.mark.slow  # two worker processes, one SIGKILLed mid-stream
async def test_worker_killed_mid_model_stream(client, temporal_address, task_queue, files) -> None:
    log, _ = files
    calls = Calls((Call("toolu_1", "add", ('{"a": 2, ', '"b": 3}')),))
    answer = anthropic([Text(("The sum ", "is 5."))])
    stalled = sse_step(answer)
    stalled.pauses = {3: 120.0}  # streams its start, then stalls until the worker is gone
    steps: list[Step] = [sse_step(anthropic([calls])), stalled, sse_step(answer)]
    async with LoopbackServer(steps) as vendor:
        settings = config(temporal_address, task_queue, files, vendor=vendor.url)
        first = await WorkerProcess(settings).ready()
        try:
            run = await start(client, task_queue, "vendor", "What is 2 + 3?", tools=["add"])
            await until(lambda: len(vendor.requests) == 2, "the second model call")
            await asyncio.sleep(0.3)  # the stalled reply has sent its first events
            result = await kill_and_replace(first, settings, run)
        finally:
            first.kill()

    assert [m["role"] for m in result.messages] == ["user", "assistant", "toolResult", "assistant"]
    assert result.messages[-1]["content"][0]["text"] == "The sum is 5."
    assert result.messages[-1]["stopReason"] == "stop"
    # Three requests: the tool call (completed once), the interrupted answer, its retry.
    assert len(vendor.requests) == 3
    bodies = [json.loads(body) for _, _, body in vendor.requests]
    assert bodies[2] == bodies[1]
    assert len(bodies[0]["messages"]) == 1 and len(bodies[1]["messages"]) == 3
    assert count(log, "add", "end") == 1


async def test_worker_shut_down_mid_tool_hands_the_call_over(
    client, temporal_address, task_queue, files
) -> None:
    """A graceful shutdown (a deploy) is not an abort: the call runs again on another worker."""
    log, gates = files
    settings = config(temporal_address, task_queue, files)
    first = await WorkerProcess(settings).ready()
    try:
        run = await start(client, task_queue, "a", "tools:d:gate", tools=["gate"])
        await until(lambda: count(log, "gate", "start") == 1, "the gate tool to start")
        await asyncio.to_thread(first.stop)  # SIGTERM: the worker shuts down gracefully
        result = await kill_and_replace(first, settings, run, (gates / "d").touch)
    finally:
        first.kill()

    assert not result.aborted
    assert result.messages[-1]["content"][0]["text"] == "results: gate=gate d passed"
    assert count(log, "gate", "start") == 2 and count(log, "gate", "end") == 1
