"""Steering and follow-up through signals, abort through cancellation, a model switch by signal:
each behaves as on a plain Agent."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from _support.temporal_agent import comparable, count, log_lines, make_tools, scripted, until
from pi_sdk_temporal import ActivitySettings, AgentRun, message_to_json, prompt_input, start_agent

import pi_sdk

FAST = ActivitySettings(heartbeat_timeout_s=1.5)


async def start(client: Any, shared: Any, prompt: str, tools: list[str], **fields: Any) -> AgentRun:
    return await start_agent(
        client,
        prompt_input("a", prompt, tools=tools, activities=FAST, **fields),
        id=f"signals-{uuid.uuid4().hex}",
        task_queue=shared.task_queue,
    )


def plain_agent(log: Path, gates: Path, tools: list[str]) -> pi_sdk.Agent:
    chosen = [t for t in make_tools(log, gates) if t.name in tools]
    return pi_sdk.Agent(model=scripted("scripted-a").model, tools=chosen)


def without_error_text(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The abort's reason differs in words ("cancelled the activity" / "aborted")."""
    out = comparable(messages)
    for message in out:
        message.pop("errorMessage", None)
    return out


async def test_steering_and_follow_up_signals(client, shared_worker, tmp_path) -> None:
    log, gates = shared_worker.log, shared_worker.gates
    run = await start(client, shared_worker, "tools:s:gate", ["gate"])
    await until(lambda: count(log, "gate", "start", "s") == 1, "the gate tool")
    await run.steer("also this")
    await run.follow_up("and then that")
    shared_worker.open_gate("s")
    durable = (await run.result()).messages

    plain_log = tmp_path / "plain.log"
    (gates / "s").unlink()
    agent = plain_agent(plain_log, gates, ["gate"])
    task = asyncio.ensure_future(agent.prompt("tools:s:gate"))
    await until(lambda: count(plain_log, "gate", "start") == 1, "the plain gate tool")
    agent.steer("also this")
    agent.follow_up("and then that")
    shared_worker.open_gate("s")
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


async def test_abort_by_cancellation_mid_stream(client, shared_worker, tmp_path) -> None:
    run = await start(client, shared_worker, "hang", [])
    streamed = ["stream", "text_delta", run.id, "-"]
    await until(lambda: streamed in log_lines(shared_worker.log), "the streamed text")
    await run.abort()
    result = await run.result()

    agent = plain_agent(tmp_path / "plain.log", shared_worker.gates, [])
    seen: list[str] = []
    agent.subscribe(lambda event: seen.append(event.type))
    task = asyncio.ensure_future(agent.prompt("hang"))
    await until(lambda: "message_update" in seen, "the plain stream")
    agent.abort()
    await task

    assert result.aborted
    last = result.messages[-1]
    assert last["stopReason"] == "aborted" and last["content"][0]["text"] == "partial answer"
    plain = [message_to_json(m) for m in agent.messages]
    assert without_error_text(result.messages) == without_error_text(plain)


async def test_abort_by_cancellation_mid_tool(client, shared_worker, tmp_path) -> None:
    log = shared_worker.log
    run = await start(client, shared_worker, "tools:x:gate", ["gate"])
    await until(lambda: count(log, "gate", "start", "x") == 1, "the gate tool")
    await run.abort()
    result = await run.result()

    plain_log = tmp_path / "plain.log"
    agent = plain_agent(plain_log, shared_worker.gates, ["gate"])
    task = asyncio.ensure_future(agent.prompt("tools:x:gate"))
    await until(lambda: count(plain_log, "gate", "start") == 1, "the plain gate tool")
    agent.abort()
    await task

    assert result.aborted
    assert [m["role"] for m in result.messages] == ["user", "assistant", "toolResult", "assistant"]
    assert result.messages[2]["content"][0]["text"] == "aborted at the gate"
    plain = [message_to_json(m) for m in agent.messages]
    assert without_error_text(result.messages) == without_error_text(plain)
    assert count(log, "gate", "end", "x") == 1


async def test_model_switch_by_signal_as_on_a_plain_agent(client, shared_worker, tmp_path) -> None:
    log, gates = shared_worker.log, shared_worker.gates
    run = await start(client, shared_worker, "tools:m:gate", ["gate"], keep_open=True)
    await until(lambda: count(log, "gate", "start", "m") == 1, "the gate tool")
    await run.set_model("b")  # mid-run: this run stays on "a", as on a plain Agent
    shared_worker.open_gate("m")
    await run.prompt("history")
    await run.close()
    result = await run.result()

    plain_log = tmp_path / "plain.log"
    (gates / "m").unlink()
    agent = plain_agent(plain_log, gates, ["gate"])
    task = asyncio.ensure_future(agent.prompt("tools:m:gate"))
    await until(lambda: count(plain_log, "gate", "start") == 1, "the plain gate tool")
    agent.model = scripted("scripted-b").model
    shared_worker.open_gate("m")
    await task
    await agent.prompt("history")

    assistants = [m for m in result.messages if m["role"] == "assistant"]
    assert [m["model"] for m in assistants] == ["scripted-a", "scripted-a", "scripted-b"]
    # Model a's signed thinking did not reach model b (pi-ai 1.6: another model's thinking is
    # dropped): the history transform applied.
    assert assistants[-1]["content"][0]["text"] == "seen: toolCall; text (scripted-b)"
    assert assistants[0]["content"][0]["thinkingSignature"] == "sig-m"  # kept in the transcript
    assert comparable(result.messages) == comparable([message_to_json(m) for m in agent.messages])
    assert (await run.state()).model == "b"


async def test_prompts_queued_during_a_run_each_run_after_it_in_the_order_sent(
    client, shared_worker
) -> None:
    log = shared_worker.log
    run = await start(client, shared_worker, "tools:q:gate", ["gate"], keep_open=True)
    await until(lambda: count(log, "gate", "start", "q") == 1, "the gate tool")
    for text in ("first", "second", "third"):
        await run.prompt(text)  # queued: the first run is still in its tool
    shared_worker.open_gate("q")
    await run.close()
    result = await run.result()
    users = [m for m in result.messages if m["role"] == "user"]
    assert [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
            for m in users] == ["tools:q:gate", "first", "second", "third"]  # fmt: skip
    # each queued prompt is its own run: a reply follows every one of them
    roles = [m["role"] for m in result.messages]
    assert [roles[i + 1] for i, r in enumerate(roles) if r == "user"] == ["assistant"] * 4
