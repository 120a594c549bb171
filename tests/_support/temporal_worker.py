"""A worker process for the Temporal tests: ``python temporal_worker.py '<json config>'``.

Config: ``address``, ``task_queue``, ``log`` and ``gates`` (see ``temporal_agent``) and
optionally ``vendor`` (a loopback server URL, served as the Anthropic model ``"vendor"``).
Registers ``AgentWorkflow`` and ``GuardedAgent``. The event sink logs ``stream <event type>
<workflow id> -`` per live event. Prints ``ready`` once it polls; SIGTERM shuts it down
gracefully (a deploy); SIGKILL is a crash.

The tests run every worker in its own process: a Temporal worker runs workflow code in threads,
and CPython 3.11's AST state is not thread-safe (gh-106905), which could break later test
imports in the pytest process.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pi_sdk_temporal import AgentRegistry, AgentWorkflow  # noqa: E402

from _support.temporal import run_worker  # noqa: E402
from _support.temporal_agent import log_line, make_tools, scripted  # noqa: E402
from _support.temporal_guarded import GuardedAgent  # noqa: E402
from _support.wire import wire_for  # noqa: E402


async def main(config: dict[str, str]) -> None:
    log = Path(config["log"])
    models = {"a": scripted("scripted-a").model, "b": scripted("scripted-b").model}
    if config.get("vendor"):
        models["vendor"] = wire_for("anthropic-messages").model(config["vendor"])

    def sink(workflow_id: str, event: dict[str, object]) -> None:
        log_line(log, "stream", event["type"], workflow_id, "-")

    registry = AgentRegistry(
        tools=make_tools(log, Path(config["gates"])),
        models=models,
        get_api_key=lambda provider: "test-key-123",
        event_sink=sink,
    )
    await run_worker(
        config["address"], config["task_queue"], registry, [AgentWorkflow, GuardedAgent]
    )


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
