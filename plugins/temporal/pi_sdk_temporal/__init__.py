"""pi-sdk-temporal: durable agent runs on Temporal.

An agent run is a workflow (:class:`AgentWorkflow`): pi-sdk's ``Agent`` and loop run in it,
with the transcript in workflow state; every model call and every tool execution is an activity
on a worker, tools and models chosen by name (:class:`AgentRegistry`). A worker that dies loses
nothing: another one replays the workflow and picks up the activity that was running. See
``docs/temporal.md``.

Example:
    ```python
    registry = AgentRegistry(tools=[get_weather], models={"claude": model})
    worker = agent_worker(client, task_queue="agents", registry=registry)
    run = await start_agent(client, prompt_input("claude", "Weather in Paris?",
                            tools=["get_weather"]), id="chat-1", task_queue="agents")
    result = await run.result()
    ```
"""

from __future__ import annotations

from ._activities import DESCRIBE_ACTIVITY, MODEL_ACTIVITY, TOOL_ACTIVITY, AgentActivities
from ._client import AgentRun, prompt_input, start_agent
from ._registry import AgentRegistry, EventSink, RegistryError
from ._wire import (
    STREAM_OPTION_FIELDS,
    ActivitySettings,
    AgentRunInput,
    AgentRunResult,
    AgentRunState,
    message_from_json,
    message_to_json,
)
from ._worker import PASSTHROUGH_MODULES, agent_worker
from ._workflow import WORKFLOW_NAME, AgentWorkflow

__all__ = [
    "DESCRIBE_ACTIVITY",
    "MODEL_ACTIVITY",
    "PASSTHROUGH_MODULES",
    "STREAM_OPTION_FIELDS",
    "TOOL_ACTIVITY",
    "WORKFLOW_NAME",
    "ActivitySettings",
    "AgentActivities",
    "AgentRegistry",
    "AgentRun",
    "AgentRunInput",
    "AgentRunResult",
    "AgentRunState",
    "AgentWorkflow",
    "EventSink",
    "RegistryError",
    "agent_worker",
    "message_from_json",
    "message_to_json",
    "prompt_input",
    "start_agent",
]
