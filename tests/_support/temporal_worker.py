"""A worker process for the Temporal tests: ``python temporal_worker.py '<json config>'``.

Config: ``address``, ``task_queue``, ``log`` and ``gates`` (see ``temporal_agent``) and
optionally ``vendor`` (a loopback server URL, served as the Anthropic model ``"vendor"``).
Prints ``ready`` once it polls; runs until killed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pi_sdk_temporal import AgentRegistry, agent_worker  # noqa: E402
from temporalio.client import Client  # noqa: E402

from _support.temporal_agent import log_line, make_tools, scripted  # noqa: E402
from _support.wire import wire_for  # noqa: E402


async def main(config: dict[str, str]) -> None:
    log = Path(config["log"])
    models = {"a": scripted("scripted-a").model, "b": scripted("scripted-b").model}
    if config.get("vendor"):
        models["vendor"] = wire_for("anthropic-messages").model(config["vendor"])

    def sink(workflow_id: str, event: dict[str, object]) -> None:
        if event["type"] == "done":
            log_line(log, "model", "done", workflow_id, "-")

    registry = AgentRegistry(
        tools=make_tools(log, Path(config["gates"])),
        models=models,
        get_api_key=lambda provider: "test-key-123",
        event_sink=sink,
    )
    client = await Client.connect(config["address"])
    worker = agent_worker(
        client,
        task_queue=config["task_queue"],
        registry=registry,
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=1),
    )
    async with worker:
        print("ready", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
