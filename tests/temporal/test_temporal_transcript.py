"""A three-tool run on Temporal gives the transcript of the same run on a plain Agent."""

from __future__ import annotations

import uuid
from pathlib import Path

from _support.temporal_agent import comparable, log_lines, make_tools, scripted
from pi_sdk_temporal import AgentRegistry, agent_worker, message_to_json, prompt_input, start_agent

import pi_sdk


def registry(log: Path, gates: Path) -> AgentRegistry:
    return AgentRegistry(tools=make_tools(log, gates), models={"a": scripted("scripted-a").model})


async def test_three_tool_run_matches_a_plain_agent(client, task_queue, files) -> None:
    log, gates = files
    (gates / "open").touch()
    prompt = "tools:t3:add,weather,gate"
    async with agent_worker(client, task_queue=task_queue, registry=registry(log, gates)):
        run = await start_agent(
            client,
            prompt_input("a", prompt, tools=["add", "weather", "gate"], system_prompt="Be brief."),
            id=f"three-{uuid.uuid4().hex}",
            task_queue=task_queue,
        )
        result = await run.result()
        events = [e async for e in run.events()]
    durable = result.messages

    plain_log = log.with_name("plain.log")
    agent = pi_sdk.Agent(
        model=scripted("scripted-a").model,
        system_prompt="Be brief.",
        tools=[t for t in make_tools(plain_log, gates) if t.name != "fail"],
    )
    plain_events: list[str] = []
    agent.subscribe(lambda event: plain_events.append(event.type))
    await agent.prompt(prompt)
    plain = [message_to_json(m) for m in agent.messages]

    assert [m["role"] for m in durable] == [
        "user",
        "assistant",
        "toolResult",
        "toolResult",
        "toolResult",
        "assistant",
    ]
    assert comparable(durable) == comparable(plain)
    assert durable[-1]["content"][0]["text"].startswith("results: add=5; weather=")
    assert [e["type"] for e in events] == [t for t in plain_events if t != "message_update"]
    assert sorted(line[0] for line in log_lines(log) if line[1] == "end") == [
        "add",
        "gate",
        "weather",
    ]


async def test_a_subclass_hook_runs_in_the_workflow_as_on_a_plain_agent(
    client, task_queue, files
) -> None:
    from _support.temporal_guarded import GuardedAgent, refuse_weather

    log, gates = files
    prompt = "tools:g:add,weather"
    worker = agent_worker(
        client,
        task_queue=task_queue,
        registry=registry(log, gates),
        workflows=[GuardedAgent],
        passthrough_modules=["_support"],
    )
    async with worker:
        run = await start_agent(
            client,
            prompt_input("a", prompt, tools=["add", "weather"]),
            id=f"guarded-{uuid.uuid4().hex}",
            task_queue=task_queue,
            workflow=GuardedAgent,
        )
        durable = (await run.result()).messages

    plain_log = log.with_name("plain.log")
    tools = [t for t in make_tools(plain_log, gates) if t.name in ("add", "weather")]
    agent = pi_sdk.Agent(
        model=scripted("scripted-a").model, tools=tools, before_tool_call=refuse_weather
    )
    await agent.prompt(prompt)

    assert durable[3]["isError"] and durable[3]["content"][0]["text"] == "no weather for Paris"
    assert comparable(durable) == comparable([message_to_json(m) for m in agent.messages])
    assert [line[0] for line in log_lines(log) if line[1] == "end"] == ["add"]
