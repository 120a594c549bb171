"""Benchmark: what the agent layer costs on top of the model calls it makes.

One "task" is a tool round trip: the model calls a tool (arguments streamed in fragments), the
tool runs, the model answers with text (streamed in deltas). Three ways to run the same task on
the scripted provider (no network, so the numbers are pure pi-sdk overhead):

- ``baseline``: the two model calls alone (``pi_sdk.complete`` twice, the tool result built by
  hand): streaming, event protocol enforcement and the provider;
- ``agent_loop``: ``pi_sdk.agent_loop`` consumed with ``async for``;
- ``Agent``: ``Agent.prompt`` with one no-op listener.

Prints the time per task (best of several runs, garbage collector off while timing) and the
ratio to the baseline measured in the same run. ``--tools N`` puts N tool calls in the first
reply (parallel execution).

Long run (``--long``): ONE ``Agent.prompt`` whose model calls a tool on every turn for
``turns`` turns, then answers; each request carries the whole history, so some growth per turn
is inherent. Prints the time of 100 and of 1,000 turns, the cost per turn at each, and the
ratio time(1,000)/time(100) (10 would be a constant cost per turn; the target is at most 20).
The scripted provider records each call's context as a list snapshot (one reference per
message); with a deep copy per call the ratio was about 100.

Run with ``uv run python benchmarks/bench_agent_loop.py [--tasks 200] [--repeats 5] [--tools 1]
[--long]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
from collections.abc import Awaitable, Callable

import pi_sdk
from pi_sdk.plugins import PluginManager, use_plugin_manager
from pi_sdk.testing import ScriptedProvider, ScriptedReply

ANSWER = "The weather in Paris is sunny, 21 degrees, with a light breeze from the west. " * 4


@pi_sdk.tool
async def get_weather(city: str, days: int = 1) -> str:
    """Return the weather for a city."""
    return f"{city}: sunny for {days} days"


def script(tasks: int, tools: int) -> list[ScriptedReply]:
    calls = [
        pi_sdk.ToolCall(id=f"c{i}", name="get_weather", arguments={"city": "Paris", "days": 3})
        for i in range(tools)
    ]
    replies: list[ScriptedReply] = []
    for _ in range(tasks):
        replies.append(ScriptedReply(content=calls, chunk_size=8))
        replies.append(ScriptedReply.text(ANSWER, chunk_size=8))
    return replies


async def run_baseline(tasks: int, tools: int) -> None:
    provider = ScriptedProvider(script(tasks, tools))
    for _ in range(tasks):
        context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="weather?")])
        first = await pi_sdk.complete(provider.model, context)
        context.messages.append(first)
        for call in first.tool_calls:
            context.messages.append(
                pi_sdk.ToolResultMessage(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    content=[pi_sdk.TextContent(text="Paris: sunny for 3 days")],
                )
            )
        await pi_sdk.complete(provider.model, context)


async def run_loop(tasks: int, tools: int) -> None:
    provider = ScriptedProvider(script(tasks, tools))
    config = pi_sdk.AgentLoopConfig(model=provider.model)
    for _ in range(tasks):
        context = pi_sdk.AgentContext(tools=[get_weather])
        prompt = pi_sdk.UserMessage(content="weather?")
        async for _event in pi_sdk.agent_loop([prompt], context, config):
            pass


async def run_agent(tasks: int, tools: int) -> None:
    provider = ScriptedProvider(script(tasks, tools))
    agent = pi_sdk.Agent(model=provider.model, tools=[get_weather])
    agent.subscribe(lambda event, signal: None)
    for _ in range(tasks):
        agent.reset()
        await agent.prompt("weather?")


def long_script(turns: int) -> list[ScriptedReply]:
    call = pi_sdk.ToolCall(id="", name="get_weather", arguments={"city": "Paris", "days": 3})
    replies = [ScriptedReply(content=[call], chunk_size=8) for _ in range(turns)]
    return [*replies, ScriptedReply.text(ANSWER, chunk_size=8)]


async def run_long(turns: int) -> None:
    provider = ScriptedProvider(long_script(turns))
    agent = pi_sdk.Agent(model=provider.model, tools=[get_weather])
    await agent.prompt("weather, again and again?")
    assert len(provider.calls) == turns + 1, agent.state.error


def long_run(repeats: int) -> None:
    times: dict[int, float] = {}
    for turns in (100, 1000):
        best = float("inf")
        for _ in range(repeats):
            gc.collect()
            start = time.perf_counter()
            asyncio.run(run_long(turns))
            best = min(best, time.perf_counter() - start)
        times[turns] = best
    print(f"one agent run, a tool call per turn, best of {repeats}")
    for turns, seconds in times.items():
        print(f"  {turns:>5} turns {seconds:8.3f} s   {seconds / turns * 1e3:7.3f} ms/turn")
    print(f"  time(1,000 turns) / time(100 turns) = {times[1000] / times[100]:.1f} (target <= 20)")


def best_time(
    fn: Callable[[int, int], Awaitable[None]], tasks: int, tools: int, repeats: int
) -> float:
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        asyncio.run(fn(tasks, tools))
        elapsed = time.perf_counter() - start
        gc.enable()
        best = min(best, elapsed)
    return best / tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tools", type=int, default=1)
    parser.add_argument("--long", action="store_true", help="only the long single-run bench")
    args = parser.parse_args()
    with use_plugin_manager(PluginManager()):  # installed plugins would add their hooks' cost
        if args.long:
            asyncio.run(run_long(2))  # warm-up
            long_run(max(1, args.repeats // 2))
            return
        asyncio.run(run_agent(2, args.tools))  # warm-up: imports, jsonschema compilation
        results = {
            "baseline": best_time(run_baseline, args.tasks, args.tools, args.repeats),
            "agent_loop": best_time(run_loop, args.tasks, args.tools, args.repeats),
            "Agent": best_time(run_agent, args.tasks, args.tools, args.repeats),
        }
    base = results["baseline"]
    print(f"tool round trip, {args.tools} tool call(s), {args.tasks} tasks, best of {args.repeats}")
    for name, seconds in results.items():
        print(f"  {name:<11} {seconds * 1e6:9.1f} µs/task   x{seconds / base:5.2f} of baseline")


if __name__ == "__main__":
    main()
