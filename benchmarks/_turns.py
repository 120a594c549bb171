"""The cost of one agent turn as the transcript grows (issue 16, item 4), measured.

Shared by ``bench_turns.py`` and ``run.py`` (its turns section and target line). One
``Agent.prompt`` whose model (the scripted provider, no network, so no request encoding) calls a
tool on every turn for ``turns`` turns, then answers; each turn adds an assistant message and a
tool result, so turn 1,000 works on a transcript of about 2,000 messages. The sizes alternate
within each round (CPU time of the process, garbage collector off while timing, installed plugins
left out); the figure is the best time per turn of each size. 1.0 between sizes is a constant
cost per turn; the target is at most 1.3 at 1,000 against 100. What still grows with the history
by nature is the provider's request (here the scripted provider's snapshot of the context, one
list copy per call); converting and validating the transcript again each turn no longer does
(``pi_sdk._agent.transcript``).
"""

from __future__ import annotations

import asyncio
import gc
import time

import pi_sdk
from pi_sdk.plugins import PluginManager, use_plugin_manager
from pi_sdk.testing import ScriptedProvider, ScriptedReply

SIZES = (100, 1000)
"""The transcript lengths compared, in turns."""


@pi_sdk.tool
async def get_weather(city: str, days: int = 1) -> str:
    """Return the weather for a city."""
    return f"{city}: sunny for {days} days"


def script(turns: int) -> list[ScriptedReply]:
    call = pi_sdk.ToolCall(id="", name="get_weather", arguments={"city": "Paris", "days": 3})
    replies = [ScriptedReply(content=[call], chunk_size=8) for _ in range(turns)]
    return [*replies, ScriptedReply.text("Sunny all week.", chunk_size=8)]


async def run(turns: int) -> float:
    """CPU seconds per turn of one prompt of ``turns`` tool-calling turns and an answer."""
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


def measure(rounds: int, sizes: tuple[int, ...] = SIZES) -> dict[int, float]:
    """Best CPU seconds per turn at each of ``sizes``, over ``rounds`` interleaved rounds.

    Runs its own event loops (``asyncio.run``): call it outside a running loop, or in a thread.
    """
    best = dict.fromkeys(sizes, float("inf"))
    with use_plugin_manager(PluginManager()):  # installed plugins would add their hooks' cost
        asyncio.run(run(5))  # warm-up: imports, schema compilation
        for _ in range(rounds):
            for turns in sizes:
                best[turns] = min(best[turns], asyncio.run(run(turns)))
    return best


def print_turns(best: dict[int, float], rounds: int) -> None:
    """Print µs per turn at each size and the ratio of the last size to the first."""
    print(f"agent turns (a tool call each), best of {rounds} interleaved rounds")
    for turns, seconds in best.items():
        print(f"  {turns:>5} turns   {seconds * 1e6:8.1f} µs/turn")
    first, last = min(best), max(best)
    ratio = best[last] / best[first]
    print(f"  per-turn({last:,}) / per-turn({first:,}) = {ratio:.2f} (target <= 1.3)")
