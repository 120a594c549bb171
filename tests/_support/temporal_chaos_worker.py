"""A worker process of the durable chaos runs: ``python temporal_chaos_worker.py '<json>'``.

Config: ``address``, ``task_queue``, ``log``, ``ledger`` (see ``temporal_chaos_agent``).
Prints ``ready`` once it polls; SIGTERM shuts it down, SIGKILL is the crash under test.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pi_sdk_temporal import AgentRegistry, AgentWorkflow  # noqa: E402

from _support.temporal import run_worker  # noqa: E402
from _support.temporal_chaos_agent import logged_stream, make_tools, scripted  # noqa: E402
from _support.temporal_recent import RecentContextAgent  # noqa: E402


async def main(config: dict[str, str]) -> None:
    log = Path(config["log"])
    registry = AgentRegistry(
        tools=make_tools(log, Path(config["ledger"])),
        models={"chaos": scripted().model},
        stream_fn=logged_stream(log),
    )
    await run_worker(
        config["address"], config["task_queue"], registry, [AgentWorkflow, RecentContextAgent]
    )


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
