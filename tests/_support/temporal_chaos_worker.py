"""A worker process of the durable chaos runs: ``python temporal_chaos_worker.py '<json>'``.

Config: ``address``, ``task_queue``, ``log``, ``ledger`` (see ``temporal_chaos_agent``).
Prints ``ready`` once it polls; SIGTERM shuts it down, SIGKILL is the crash under test.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pi_sdk_temporal import AgentRegistry, AgentWorkflow, agent_worker  # noqa: E402
from temporalio.client import Client  # noqa: E402

from _support.temporal_chaos_agent import logged_stream, make_tools, scripted  # noqa: E402
from _support.temporal_recent import RecentContextAgent  # noqa: E402


async def main(config: dict[str, str]) -> None:
    log = Path(config["log"])
    registry = AgentRegistry(
        tools=make_tools(log, Path(config["ledger"])),
        models={"chaos": scripted().model},
        stream_fn=logged_stream(log),
    )
    client = await Client.connect(config["address"])
    worker = agent_worker(
        client,
        task_queue=config["task_queue"],
        registry=registry,
        workflows=[AgentWorkflow, RecentContextAgent],
        passthrough_modules=["_support"],
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=1),
    )
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with worker:
        print("ready", flush=True)
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
