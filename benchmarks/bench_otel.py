"""Benchmark: what pi-sdk-otel costs an agent run.

One task is ``Agent.prompt`` on the scripted provider whose first reply calls two tools, then
answers (two model calls, two tool executions: 1 ``invoke_agent``, 2 ``turn``, 2 ``chat``, 2
``execute_tool`` spans). Three setups, timed interleaved in the same run:

- ``no plugin``: the observer hooks have no implementation (the baseline);
- ``otel, no SDK``: the plugin on OpenTelemetry's default global provider (no-op spans), what
  an application that installed the plugin but set up no SDK pays;
- ``otel + SDK``: the plugin on an SDK ``TracerProvider`` exporting to memory through a
  ``SimpleSpanProcessor`` (spans built, attributes set, exported);
- ``otel + SDK + content``: the same, prompts and completions recorded;
- ``otel + SDK + metrics``: spans as in ``otel + SDK``, and the model calls' metrics on an SDK
  ``MeterProvider`` with an in-memory reader (``pi_sdk_otel.metrics``).

The setups take turns in small chunks of tasks (the machine's load changes by the second);
prints each setup's best time per task over its chunks and the ratio to the baseline.
Run with ``uv run python benchmarks/bench_otel.py [--tasks 20] [--repeats 30]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time

import pi_sdk_otel
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import pi_sdk
from pi_sdk.plugins import PluginManager, use_plugin_manager
from pi_sdk.testing import ScriptedProvider, ScriptedReply


@pi_sdk.tool
async def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    return key.upper()


def replies() -> list[ScriptedReply | str]:
    calls = [
        pi_sdk.ToolCall(id="call_a", name="lookup", arguments={"key": "a"}),
        pi_sdk.ToolCall(id="call_b", name="lookup", arguments={"key": "b"}),
    ]
    return [ScriptedReply(content=calls), "Both looked up: A and B."]


async def run_tasks(tasks: int) -> float:
    start = time.perf_counter()
    for _ in range(tasks):
        provider = ScriptedProvider(replies())
        agent = pi_sdk.Agent(model=provider.model, tools=[lookup])
        await agent.prompt("look a and b up")
    return (time.perf_counter() - start) / tasks


def setups() -> dict[str, tuple[bool, pi_sdk_otel.Tracing | None]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    meters = MeterProvider(metric_readers=[InMemoryMetricReader()])
    return {
        "no plugin": (False, None),
        "otel, no SDK": (True, pi_sdk_otel.Tracing()),
        "otel + SDK": (True, pi_sdk_otel.Tracing(provider)),
        "otel + SDK + content": (True, pi_sdk_otel.Tracing(provider, capture_content=True)),
        "otel + SDK + metrics": (True, pi_sdk_otel.Tracing(provider, meter_provider=meters)),
    }


async def main(tasks: int, repeats: int) -> None:
    best: dict[str, float] = {}
    configs = setups()
    for _ in range(repeats):
        for name, (installed, tracing) in configs.items():
            with use_plugin_manager(PluginManager()) as pm:
                if installed:
                    pm.register(pi_sdk_otel, name="otel")
                    pi_sdk_otel.configure(tracing)
                await run_tasks(2)  # warm-up
                gc.disable()
                try:
                    elapsed = await run_tasks(tasks)
                finally:
                    gc.enable()
                    pi_sdk_otel.reset()
            best[name] = min(best.get(name, elapsed), elapsed)
    base = best["no plugin"]
    for name, seconds in best.items():
        print(f"{name:24} {seconds * 1e6:9.0f} us/task  x{seconds / base:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="What pi-sdk-otel costs an agent run.")
    parser.add_argument("--tasks", type=int, default=20, help="tasks per chunk")
    parser.add_argument("--repeats", type=int, default=30, help="chunks per setup")
    args = parser.parse_args()
    asyncio.run(main(args.tasks, args.repeats))
