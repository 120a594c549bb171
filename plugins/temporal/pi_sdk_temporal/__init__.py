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

from typing import TYPE_CHECKING

from pi_sdk.plugins import lazy_exports

if TYPE_CHECKING:
    from ._activities import DESCRIBE_ACTIVITY as DESCRIBE_ACTIVITY
    from ._activities import MODEL_ACTIVITY as MODEL_ACTIVITY
    from ._activities import TOOL_ACTIVITY as TOOL_ACTIVITY
    from ._activities import AgentActivities as AgentActivities
    from ._client import AgentRun as AgentRun
    from ._client import prompt_input as prompt_input
    from ._client import start_agent as start_agent
    from ._registry import AgentRegistry as AgentRegistry
    from ._registry import EventSink as EventSink
    from ._registry import RegistryError as RegistryError
    from ._tool_call import DurableToolCall as DurableToolCall
    from ._tool_call import durable_tool_call as durable_tool_call
    from ._tool_call import idempotency_key as idempotency_key
    from ._wire import STREAM_OPTION_FIELDS as STREAM_OPTION_FIELDS
    from ._wire import ActivitySettings as ActivitySettings
    from ._wire import AgentRunInput as AgentRunInput
    from ._wire import AgentRunResult as AgentRunResult
    from ._wire import AgentRunState as AgentRunState
    from ._wire import Continued as Continued
    from ._wire import message_from_json as message_from_json
    from ._wire import message_to_json as message_to_json
    from ._worker import PASSTHROUGH_MODULES as PASSTHROUGH_MODULES
    from ._worker import agent_worker as agent_worker
    from ._workflow import WORKFLOW_NAME as WORKFLOW_NAME
    from ._workflow import AgentWorkflow as AgentWorkflow

# Every pi-sdk process imports the installed plugins' entry points (``pi_sdk_temporal._plugin``),
# and importing a submodule runs this file first: the names below are imported on first use, so
# a process that never touches Temporal never imports ``temporalio`` (about 290 ms).
_HOMES = {
    "DESCRIBE_ACTIVITY": "_activities",
    "MODEL_ACTIVITY": "_activities",
    "TOOL_ACTIVITY": "_activities",
    "AgentActivities": "_activities",
    "AgentRun": "_client",
    "prompt_input": "_client",
    "start_agent": "_client",
    "AgentRegistry": "_registry",
    "EventSink": "_registry",
    "RegistryError": "_registry",
    "DurableToolCall": "_tool_call",
    "durable_tool_call": "_tool_call",
    "idempotency_key": "_tool_call",
    "STREAM_OPTION_FIELDS": "_wire",
    "ActivitySettings": "_wire",
    "AgentRunInput": "_wire",
    "AgentRunResult": "_wire",
    "AgentRunState": "_wire",
    "Continued": "_wire",
    "message_from_json": "_wire",
    "message_to_json": "_wire",
    "PASSTHROUGH_MODULES": "_worker",
    "agent_worker": "_worker",
    "WORKFLOW_NAME": "_workflow",
    "AgentWorkflow": "_workflow",
}

__getattr__, __dir__ = lazy_exports(__name__, {n: f"{__name__}.{h}" for n, h in _HOMES.items()})
