"""A three-tool run on Temporal gives the transcript of the same run on a plain Agent."""

from __future__ import annotations

import uuid
from pathlib import Path

from _support.temporal_agent import comparable, count, make_tools, scripted
from _support.temporal_guarded import GuardedAgent, refuse_weather
from pi_sdk_temporal import AgentWorkflow, message_to_json, prompt_input, start_agent

import pi_sdk


def plain_agent(tmp_path: Path, gates: Path, tools: list[str], **options: object) -> pi_sdk.Agent:
    chosen = [t for t in make_tools(tmp_path / "plain.log", gates) if t.name in tools]
    return pi_sdk.Agent(model=scripted("scripted-a").model, tools=chosen, **options)  # type: ignore[arg-type]


async def durable_run(
    client, shared, prompt: str, tools: list[str], workflow: type[AgentWorkflow] = AgentWorkflow
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    run = await start_agent(
        client,
        prompt_input("a", prompt, tools=tools, system_prompt="Be brief."),
        id=f"transcript-{uuid.uuid4().hex}",
        task_queue=shared.task_queue,
        workflow=workflow,
    )
    result = await run.result()
    return result.messages, [e async for e in run.events()]


async def test_three_tool_run_matches_a_plain_agent(client, shared_worker, tmp_path) -> None:
    shared_worker.open_gate("t3")
    prompt = "tools:t3:add,weather,gate"
    durable, events = await durable_run(client, shared_worker, prompt, ["add", "weather", "gate"])

    agent = plain_agent(tmp_path, shared_worker.gates, ["add", "weather", "gate"])
    agent.system_prompt = "Be brief."
    plain_events: list[str] = []
    agent.subscribe(lambda event: plain_events.append(event.type))
    await agent.prompt(prompt)
    plain = [message_to_json(m) for m in agent.messages]

    roles = [m["role"] for m in durable]
    assert roles == ["user", "assistant", "toolResult", "toolResult", "toolResult", "assistant"]
    assert comparable(durable) == comparable(plain)
    assert durable[-1]["content"][0]["text"].startswith("results: add=5; weather=")  # type: ignore[index]
    assert [e["type"] for e in events] == [t for t in plain_events if t != "message_update"]
    for tool in ("add", "weather", "gate"):
        assert count(shared_worker.log, tool, "end", "t3") == 1


async def test_a_subclass_hook_runs_in_the_workflow_as_on_a_plain_agent(
    client, shared_worker, tmp_path
) -> None:
    prompt = "tools:g:add,weather"
    durable, _ = await durable_run(client, shared_worker, prompt, ["add", "weather"], GuardedAgent)

    agent = plain_agent(
        tmp_path, shared_worker.gates, ["add", "weather"], before_tool_call=refuse_weather
    )
    agent.system_prompt = "Be brief."
    await agent.prompt(prompt)

    assert durable[3]["isError"] and durable[3]["content"][0]["text"] == "no weather for Paris"  # type: ignore[index]
    assert comparable(durable) == comparable([message_to_json(m) for m in agent.messages])
    assert count(shared_worker.log, "add", "end", "g") == 1
    assert count(shared_worker.log, "weather", "start", "g") == 0
