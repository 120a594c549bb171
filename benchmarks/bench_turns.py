"""Benchmark: the cost of one agent turn as the transcript grows (issue 16, item 4).

One ``Agent.prompt`` whose model (the scripted provider, no network) calls a tool on every turn
for ``turns`` turns, then answers; each turn adds an assistant message and a tool result, so
turn 1,000 works on a transcript of about 2,000 messages. Runs of 100 and of 1,000 turns
alternate (``--rounds`` each; CPU time of the process, garbage collector off while timing); the
table gives the best time per turn of each and the ratio per-turn(1,000) / per-turn(100): 1.0
is a constant cost per turn, the target is at most 1.3. What still grows with the history by
nature is the provider's request (here the scripted provider's snapshot of the context, one
list copy per call); converting and validating the transcript again each turn no longer does
(``pi_sdk.agent._transcript``).

Run with ``uv run python benchmarks/bench_turns.py [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time

import pi_sdk
from pi_sdk.plugins import PluginManager, use_plugin_manager
from pi_sdk.testing import ScriptedProvider, ScriptedReply


@pi_sdk.tool
async def get_weather(city: str, days: int = 1) -> str:
    """Return the weather for a city."""
    return f"{city}: sunny for {days} days"


def script(turns: int) -> list[ScriptedReply]:
    call = pi_sdk.ToolCall(id="", name="get_weather", arguments={"city": "Paris", "days": 3})
    replies = [ScriptedReply(content=[call], chunk_size=8) for _ in range(turns)]
    return [*replies, ScriptedReply.text("Sunny all week.", chunk_size=8)]


async def run(turns: int) -> float:
    provider = ScriptedProvider(script(turns))
    agent = pi_sdk.Agent(model=provider.model, tools=[get_weather])
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        await agent.prompt("weather, again and again?")
        elapsed = time.process_time() - start
    finally:
        gc.enable()
    if len(provider.calls) != turns + 1:
        raise RuntimeError(f"the run stopped early: {agent.state.error}")
    return elapsed / (turns + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sizes = (100, 1000)
    best = dict.fromkeys(sizes, float("inf"))
    with use_plugin_manager(PluginManager()):  # installed plugins would add their hooks' cost
        asyncio.run(run(5))  # warm-up: imports, schema compilation
        for _ in range(args.rounds):
            for turns in sizes:
                best[turns] = min(best[turns], asyncio.run(run(turns)))
    print(f"agent turns (a tool call each), best of {args.rounds} interleaved rounds")
    for turns, seconds in best.items():
        print(f"  {turns:>5} turns   {seconds * 1e6:8.1f} µs/turn")
    ratio = best[1000] / best[100]
    print(f"  per-turn(1,000) / per-turn(100) = {ratio:.2f} (target <= 1.3)")


if __name__ == "__main__":
    main()
