"""Steering and follow-up through signals, abort through cancellation, a model switch by signal:
each behaves as on a plain Agent."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from _support.temporal_agent import comparable, log_lines, make_tools, scripted, until
from pi_sdk_temporal import (
    ActivitySettings,
    AgentRegistry,
    AgentRun,
    agent_worker,
    message_to_json,
    prompt_input,
    start_agent,
)

import pi_sdk

FAST = ActivitySettings(heartbeat_timeout_s=1.5)


def gate_started(log: Path) -> Callable[[], bool]:
    return lambda: any(line[:2] == ["gate", "start"] for line in log_lines(log))


class Worker:
    def __init__(self, client: Any, task_queue: str, log: Path, gates: Path) -> None:
        self.client, self.task_queue = client, task_queue
        self.streamed: dict[str, list[str]] = {}

        def sink(workflow_id: str, event: dict[str, Any]) -> None:
            self.streamed.setdefault(workflow_id, []).append(event["type"])

        models = {"a": scripted("scripted-a").model, "b": scripted("scripted-b").model}
        self.registry = AgentRegistry(tools=make_tools(log, gates), models=models, event_sink=sink)

    async def start(self, prompt: str, tools: list[str], **fields: Any) -> AgentRun:
        return await start_agent(
            self.client,
            prompt_input("a", prompt, tools=tools, activities=FAST, **fields),
            id=f"signals-{uuid.uuid4().hex}",
            task_queue=self.task_queue,
        )


@pytest.fixture
async def worker(client, task_queue, files) -> AsyncIterator[Worker]:
    log, gates = files
    helper = Worker(client, task_queue, log, gates)
    async with agent_worker(client, task_queue=task_queue, registry=helper.registry):
        yield helper


def plain_agent(log: Path, gates: Path, tools: list[str]) -> pi_sdk.Agent:
    chosen = [t for t in make_tools(log, gates) if t.name in tools]
    return pi_sdk.Agent(model=scripted("scripted-a").model, tools=chosen)


async def test_steering_and_follow_up_signals(worker, files) -> None:
    log, gates = files
    run = await worker.start("tools:s:gate", ["gate"])
    await until(gate_started(log), "the gate tool")
    await run.steer("also this")
    await run.follow_up("and then that")
    (gates / "open").touch()
    durable = (await run.result()).messages

    (gates / "open").unlink()
    plain_log = log.with_name("plain.log")
    agent = plain_agent(plain_log, gates, ["gate"])
    task = asyncio.ensure_future(agent.prompt("tools:s:gate"))
    await until(gate_started(plain_log), "the plain gate tool")
    agent.steer("also this")
    agent.follow_up("and then that")
    (gates / "open").touch()
    await task
    plain = [message_to_json(m) for m in agent.messages]

    texts = [m["content"][0].get("text") for m in durable if m["role"] != "toolResult"]
    assert texts[2:] == [
        "also this",
        "echo: also this (scripted-a)",
        "and then that",
        "echo: and then that (scripted-a)",
    ]
    assert comparable(durable) == comparable(plain)


async def test_abort_by_cancellation_mid_stream(worker, files) -> None:
    log, gates = files
    run = await worker.start("hang", [])
    await until(lambda: "text_delta" in worker.streamed.get(run.id, []), "the streamed text")
    await run.abort()
    result = await run.result()

    agent = plain_agent(log, gates, [])
    seen: list[str] = []
    agent.subscribe(lambda event: seen.append(event.type))
    task = asyncio.ensure_future(agent.prompt("hang"))
    await until(lambda: "message_update" in seen, "the plain stream")
    agent.abort()
    await task

    assert result.aborted
    last = result.messages[-1]
    assert last["stopReason"] == "aborted" and last["content"][0]["text"] == "partial answer"
    plain = comparable([message_to_json(m) for m in agent.messages])
    durable = comparable(result.messages)
    for message in (*plain, *durable):
        message.pop("errorMessage", None)  # the abort's reason: "cancelled" vs "aborted"
    assert durable == plain


async def test_abort_by_cancellation_mid_tool(worker, files) -> None:
    log, gates = files
    run = await worker.start("tools:x:gate", ["gate"])
    await until(gate_started(log), "the gate tool")
    await run.abort()
    result = await run.result()

    plain_log = log.with_name("plain.log")
    agent = plain_agent(plain_log, gates, ["gate"])
    task = asyncio.ensure_future(agent.prompt("tools:x:gate"))
    await until(gate_started(plain_log), "the plain gate tool")
    agent.abort()
    await task

    assert result.aborted
    assert [m["role"] for m in result.messages] == ["user", "assistant", "toolResult", "assistant"]
    assert result.messages[2]["content"][0]["text"] == "aborted at the gate"
    plain = comparable([message_to_json(m) for m in agent.messages])
    durable = comparable(result.messages)
    for message in (*plain, *durable):
        message.pop("errorMessage", None)
    assert durable == plain
    assert sum(1 for line in log_lines(log) if line[:2] == ["gate", "end"]) == 1


async def test_model_switch_by_signal_takes_effect_at_the_next_run(worker, files) -> None:
    log, gates = files
    run = await worker.start("tools:m:gate", ["gate"], keep_open=True)
    await until(gate_started(log), "the gate tool")
    await run.set_model("b")  # mid-run: this run stays on "a", as on a plain Agent
    (gates / "open").touch()
    await run.prompt("again")
    await run.close()
    result = await run.result()

    assistants = [m for m in result.messages if m["role"] == "assistant"]
    assert [m["model"] for m in assistants] == ["scripted-a", "scripted-a", "scripted-b"]
    assert assistants[-1]["content"][0]["text"] == "echo: again (scripted-b)"
    assert (await run.state()).model == "b"
