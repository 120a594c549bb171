"""The activities: one model call, one tool execution, and the worker's catalog.

They run on a worker, outside the workflow: here is where I/O happens (the vendor's stream,
the tool's effects), where the registry resolves names, and where the live events go to the
registry's ``event_sink``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter
from temporalio import activity
from temporalio.exceptions import ApplicationError

import pi_sdk
from pi_sdk import AbortSignal, AgentToolResult, StreamOptions
from pi_sdk.agent import to_tool_result
from pi_sdk.events import event_to_dict
from pi_sdk.types import Context, Model

from ._cancel import run_with_heartbeats
from ._registry import AgentRegistry, RegistryError
from ._tool_call import DurableToolCall, executing
from ._wire import (
    JSON,
    ModelCall,
    ToolOutcome,
    ToolRun,
    ToolSpec,
    WorkerCatalog,
    jsonable,
    message_to_json,
)

__all__ = [
    "DESCRIBE_ACTIVITY",
    "MODEL_ACTIVITY",
    "TOOL_ACTIVITY",
    "AgentActivities",
    "tool_outcome",
]

MODEL_ACTIVITY = "pi_agent_model_call"
TOOL_ACTIVITY = "pi_agent_tool_call"
DESCRIBE_ACTIVITY = "pi_agent_describe"

_MODEL_JSON: TypeAdapter[Model] = TypeAdapter(Model)


def _missing(exc: RegistryError) -> ApplicationError:
    # Another attempt on this worker would fail the same way: not retryable.
    return ApplicationError(str(exc), type="RegistryError", non_retryable=True)


class AgentActivities:
    """The activities of one worker, bound to its :class:`AgentRegistry`.

    Pass :meth:`all` to ``temporalio.worker.Worker(activities=...)``, or use
    :func:`pi_sdk_temporal.agent_worker`.
    """

    def __init__(self, registry: AgentRegistry) -> None:
        self.registry = registry

    def all(self) -> list[Callable[..., Any]]:
        """The activity functions to register on a worker."""
        return [self.describe, self.call_model, self.run_tool]

    @activity.defn(name=DESCRIBE_ACTIVITY)
    async def describe(self, models: list[str], tools: list[str]) -> WorkerCatalog:
        """The named models (pi ``Model`` JSON) and tool definitions.

        Raises:
            ApplicationError: a name is not registered (not retried).
        """
        try:
            found = {
                name: _MODEL_JSON.dump_python(self.registry.model(name), mode="json", by_alias=True)
                for name in models
            }
            specs = [_spec(self.registry, name) for name in tools]
        except RegistryError as exc:
            raise _missing(exc) from None
        return WorkerCatalog(models=found, tools=specs)

    @activity.defn(name=MODEL_ACTIVITY)
    async def call_model(self, call: ModelCall) -> JSON:
        """Stream one model call and return the final assistant message (pi JSON).

        Vendor failures are not exceptions: pi-sdk's retry policy runs inside, then the call
        ends with a message whose ``stop_reason`` is ``"error"`` (``"aborted"`` when the
        workflow cancelled it, partial content kept).

        Raises:
            ApplicationError: the model is not registered, or the stream function raised
                (not retried; the workflow's loop turns it into an error message).
        """
        registry = self.registry
        try:
            model = registry.model(call.model)
        except RegistryError as exc:
            raise _missing(exc) from None
        context = Context.model_validate(call.context)
        sink = _Sink(registry)

        async def stream(signal: AbortSignal) -> JSON:
            options = StreamOptions(**call.options, signal=signal)
            if registry.get_api_key is not None:
                key = registry.get_api_key(model.provider)
                options.api_key = await key if inspect.isawaitable(key) else key
            stream_fn = registry.stream_fn or pi_sdk.stream
            events = stream_fn(model, context, options)
            async for event in events:
                sink.send(event_to_dict(event, include_partial=False))
            final = await events.result()
            await sink.flush()
            return message_to_json(final)

        try:
            return await run_with_heartbeats(stream)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise ApplicationError(
                _describe(exc), type=type(exc).__name__, non_retryable=True
            ) from None

    @activity.defn(name=TOOL_ACTIVITY)
    async def run_tool(self, run: ToolRun) -> ToolOutcome:
        """Execute one tool call with arguments the workflow validated.

        The arguments are validated again here (cheap, idempotent) so that a tool with a
        pydantic model receives an instance. A tool that raises gives an outcome with
        ``error`` set: the text of the error result, as on a plain Agent.

        Raises:
            ApplicationError: the tool is not registered on this worker (not retried).
        """
        try:
            tool = self.registry.tool(run.tool)
        except RegistryError as exc:
            raise _missing(exc) from None
        sink = _Sink(self.registry)

        def on_update(partial: AgentToolResult) -> None:
            partial_json = tool_outcome(partial)
            sink.send(
                {
                    "type": "tool_execution_update",
                    "toolCallId": run.tool_call_id,
                    "toolName": run.tool,
                    "args": run.args,
                    "partialResult": {
                        "content": partial_json.content,
                        "details": partial_json.details,
                    },
                }
            )

        async def execute(signal: AbortSignal) -> ToolOutcome:
            try:
                args = tool.validate_arguments(run.args)
                value = await tool.execute(run.tool_call_id, args, signal, on_update)
            except Exception as exc:  # noqa: BLE001 - tools report failure by raising
                outcome = ToolOutcome(error=_describe(exc))
            else:
                outcome = tool_outcome(to_tool_result(value))
            await sink.flush()
            return outcome

        info = activity.info()
        call = DurableToolCall(
            workflow_id=info.workflow_id or "",
            run_id=info.workflow_run_id or "",
            tool_call_id=run.tool_call_id,
            tool_name=run.tool,
            attempt=info.attempt,
        )
        with executing(call):  # the tool's task copies the context: it sees the call
            return await run_with_heartbeats(execute)


def tool_outcome(result: AgentToolResult) -> ToolOutcome:
    """A tool's result as the activity's JSON output."""
    return ToolOutcome(
        content=[block.model_dump(mode="json", by_alias=True) for block in result.content],
        details=jsonable(result.details),
        terminate=result.terminate,
    )


def _spec(registry: AgentRegistry, name: str) -> ToolSpec:
    tool = registry.tool(name)
    return ToolSpec(
        name=tool.name,
        description=tool.description,
        parameters=tool.parameters,
        label=tool.label,
        execution_mode=tool.execution_mode,
    )


def _describe(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


class _Sink:
    """Forwards live events to the registry's sink, in order, from any thread."""

    def __init__(self, registry: AgentRegistry) -> None:
        self._sink = registry.event_sink
        self._workflow_id = activity.info().workflow_id or ""
        self._loop = asyncio.get_running_loop()
        self._last: asyncio.Future[None] | None = None

    def send(self, event: dict[str, Any]) -> None:
        if self._sink is None:
            return
        self._loop.call_soon_threadsafe(self._chain, event)

    async def flush(self) -> None:
        """Wait until every event sent so far was delivered."""
        await asyncio.sleep(0)  # let call_soon_threadsafe callbacks of this loop run
        if self._last is not None:
            await asyncio.wait([self._last])

    def _chain(self, event: dict[str, Any]) -> None:
        previous = self._last
        self._last = asyncio.ensure_future(self._deliver(previous, event))

    async def _deliver(self, previous: asyncio.Future[None] | None, event: dict[str, Any]) -> None:
        if previous is not None:
            await asyncio.wait([previous])
        assert self._sink is not None
        try:
            result = self._sink(self._workflow_id, event)
            if inspect.isawaitable(result):
                await result
        except Exception:  # noqa: BLE001 - a broken sink must not fail the call
            activity.logger.exception("pi-sdk-temporal event sink raised; event dropped")
