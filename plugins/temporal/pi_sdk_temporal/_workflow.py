"""The agent workflow: a :class:`pi_sdk.Agent` whose model calls and tools are activities.

The workflow runs pi-sdk's own ``Agent`` and agent loop, unchanged, so a durable run behaves
as a plain one (queues, tool batches, hooks, ``convert_to_llm``, ``transform_context``, abort).
What the loop does itself is deterministic and runs here, replayed from history after a worker
dies: converting the transcript for the model, validating tool arguments, the tool-call hooks,
deciding what comes next. What is not deterministic runs in activities, whose results the
history records: each model call (:data:`~pi_sdk_temporal._activities.MODEL_ACTIVITY`, streamed
on the worker, returning the final message) and each tool execution
(:data:`~pi_sdk_temporal._activities.TOOL_ACTIVITY`). Tools and models are names, resolved on
the worker (:class:`~pi_sdk_temporal.AgentRegistry`).

A long run continues-as-new between two turns before its history reaches Temporal's limits
(:mod:`~pi_sdk_temporal._history`), carrying the transcript, the queues and the event count.

Signals: ``steer``, ``follow_up`` (a message, pi JSON), ``prompt`` (a list of messages: the next
run of a ``keep_open`` workflow), ``set_model`` (a registry name; like assigning
``agent.model``: it takes effect at the next run), ``close``. Cancelling the workflow is
``abort()``: the run ends with an ``aborted`` message and the workflow completes with the
transcript. Queries: ``state`` (:class:`~pi_sdk_temporal.AgentRunState`) and ``events(after)``
(the agent events from index ``after`` on, pi JSON).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from pydantic import TypeAdapter

    from pi_sdk import AbortSignal, Agent, AgentToolResult, StreamOptions
    from pi_sdk.agent import (
        AgentEvent,
        AgentMessage,
        AgentTool,
        ShouldStopAfterTurnContext,
        ToolResultContent,
        agent_event_to_dict,
    )
    from pi_sdk.events import AssistantMessageEvent
    from pi_sdk.plugins import gate_observers
    from pi_sdk.provider import MessageBuilder
    from pi_sdk.types import AssistantMessage, Context, Model, Tool

    from ._activities import DESCRIBE_ACTIVITY, MODEL_ACTIVITY, TOOL_ACTIVITY
    from ._history import history_full, undelivered
    from ._wire import (
        JSON,
        STREAM_OPTION_FIELDS,
        ActivitySettings,
        AgentRunInput,
        AgentRunResult,
        AgentRunState,
        Continued,
        ModelCall,
        ToolOutcome,
        ToolRun,
        ToolSpec,
        WorkerCatalog,
        message_from_json,
        message_to_json,
        verbatim,
    )

__all__ = ["WORKFLOW_NAME", "AgentWorkflow"]

WORKFLOW_NAME = "PiAgentWorkflow"

_CONTENT: TypeAdapter[list[ToolResultContent]] = TypeAdapter(list[ToolResultContent])


class ActivityFailed(RuntimeError):
    """An activity failed; the text is its error's (the loop shows it as pi-sdk would)."""


class _Reply:
    """A model call's answer as a stream: its terminal event only.

    The deltas stayed on the worker; the event is built by the provider kit like any other.
    """

    def __init__(self, model: Model, message: AssistantMessage) -> None:
        self._message = message
        builder = MessageBuilder(model)
        builder.message = message
        stop = message.stop_reason
        if stop == "error" or stop == "aborted":
            reason = message.error_message or stop
            self._events = builder.error(reason, reason=stop)
        elif stop == "pending" or stop == "deferred":  # pi-ai 1.6 only: no activity ends so
            raise ActivityFailed(f"the model call ended {stop!r}, which pi-sdk cannot continue")
        else:
            self._events = builder.done(stop, exact=True)

    async def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        for event in self._events:
            yield event

    async def result(self) -> AssistantMessage:
        return self._message


@workflow.defn(name=WORKFLOW_NAME)
class AgentWorkflow:
    """One agent (transcript, queues, model) as a workflow; see the module docstring."""

    @workflow.init
    def __init__(self, input: AgentRunInput) -> None:  # noqa: A002 - Temporal passes it so
        """Build the Agent before any signal arrives (model and tools come in ``run``)."""
        self._input = input
        self._settings = input.activities
        self._agent = Agent(
            system_prompt=input.system_prompt,
            thinking_level=input.thinking_level,  # pyright: ignore[reportArgumentType]
            messages=[message_from_json(m) for m in input.messages],
            steering_mode=input.steering_mode,  # pyright: ignore[reportArgumentType]
            follow_up_mode=input.follow_up_mode,  # pyright: ignore[reportArgumentType]
            tool_execution=input.tool_execution,  # pyright: ignore[reportArgumentType]
            tool_steering=input.tool_steering,  # pyright: ignore[reportArgumentType]
            tool_abort_grace_ms=input.tool_abort_grace_ms,
            stream_fn=self._call_model,
            stream_options=StreamOptions(**input.options),
        )
        self._agent.subscribe(self._record)
        self._events: list[JSON] = []
        self._models: dict[str, Model] = {}
        self._model_name = input.model
        self._prompts: list[list[JSON]] = []
        self._closed = False
        self._switching = 0
        self._sent: list[AgentMessage] = []  # steering and follow-ups, until in the transcript
        self._follow_ups: list[AgentMessage] = []
        self._terminating: set[str] = set()  # tool calls whose result ends the run
        self._continuing = False
        continued = input.continued
        self._events_before = continued.events_before if continued else 0
        if continued is not None:
            self._model_name = continued.model or input.model
            self._prompts = [list(p) for p in continued.prompts]
            for data in continued.steering:
                self.steer(data)
            for data in continued.follow_up:
                self.follow_up(data)
        self.configure_agent(self._agent)
        self._user_should_stop = self._agent.should_stop_after_turn
        self._agent.should_stop_after_turn = self._should_stop

    def configure_agent(self, agent: Agent) -> None:
        """Set the Agent's callables in a subclass; they run in the workflow, replayed.

        ``convert_to_llm``, ``transform_context``, ``before_tool_call``, ``after_tool_call``,
        ``should_stop_after_turn``, listeners: whatever a plain Agent takes as code. They must
        be deterministic (see docs/temporal.md). The default sets nothing.

        Example:
            ```python
            @workflow.defn(name="GuardedAgent")
            class GuardedAgent(AgentWorkflow):
                @workflow.run
                async def run(self, input: AgentRunInput) -> AgentRunResult:
                    return await super().run(input)

                def configure_agent(self, agent: Agent) -> None:
                    agent.before_tool_call = refuse_deletes
            ```
        """

    # -- the run -----------------------------------------------------------------------------

    @workflow.run
    async def run(self, input: AgentRunInput) -> AgentRunResult:  # noqa: A002
        """Run the prompt (or continue the transcript); with ``keep_open``, every later prompt.

        The plugins' observers (``on_agent_event``: ``pi-sdk-otel``'s spans) see each event
        once: not while the workflow replays its history, and outside the sandbox's
        restrictions, since they write to the worker's own exporters (:func:`_observe_live`).
        """
        with gate_observers(_observe_live):
            return await self._run(input)

    async def _run(self, input: AgentRunInput) -> AgentRunResult:  # noqa: A002
        catalog = await self._describe([self._model_name], input.tools)
        agent = self._agent
        if agent.model is None:  # a set_model signal may have come first
            agent.model = self._models[self._model_name]
        agent.tools = [self._remote_tool(spec) for spec in catalog.tools]
        continued = input.continued
        self._declare_base_tools(continued)
        try:
            if continued is not None:
                if continued.resume:
                    await agent.continue_()
            elif input.prompt:
                await agent.prompt([message_from_json(m) for m in input.prompt])
            elif input.messages:
                await agent.continue_()
            self._continue_if_full(input, resume=True)
            while input.keep_open:
                await workflow.wait_condition(
                    lambda: bool(self._prompts) or self._closed or history_full(input)
                )
                if not self._prompts and not self._closed:
                    self._continue_if_full(input, resume=False)
                if not self._prompts:
                    break
                await workflow.wait_condition(lambda: self._switching == 0)
                await agent.prompt([message_from_json(m) for m in self._prompts.pop(0)])
                self._continue_if_full(input, resume=True)
        except asyncio.CancelledError:
            pass  # abort: the Agent wound the run down; the transcript is complete
        messages = list(agent.messages)
        last = messages[-1] if messages else None
        aborted = isinstance(last, AssistantMessage) and last.stop_reason == "aborted"
        transcript = verbatim([message_to_json(m) for m in messages])
        return AgentRunResult(messages=transcript, aborted=aborted)

    def _declare_base_tools(self, continued: Continued | None) -> None:
        """The tools the transcript starts with: what the first run started with.

        A plain ``Agent(tools=..., messages=...)`` takes its tools as the ones its transcript
        declares; the workflow assigns them after building the Agent, so it says so here. A run
        that continued-as-new starts from the first run's base, carried in ``continued``: the
        transcript's system messages hold every change since, and an unchanged tool is not
        announced again (pi-agent-core 1.6 announces only a difference).
        """
        state = self._agent.state
        if continued is not None and continued.base_tools is not None:
            state.base_tools = [Tool.model_validate(data) for data in continued.base_tools]
        else:
            state.base_tools = [tool.to_tool() for tool in state.tools]

    def _record(self, event: AgentEvent) -> None:
        self._events.append(agent_event_to_dict(event, include_partial=False))

    # -- continue-as-new ---------------------------------------------------------------------

    async def _should_stop(self, context: ShouldStopAfterTurnContext) -> bool:
        """The Agent's ``should_stop_after_turn``: the subclass's, then the history's limits."""
        hook = self._user_should_stop
        if hook is not None:
            answer = hook(context)
            if inspect.isawaitable(answer):
                answer = await answer
            if answer:
                return True
        goes_on = bool(context.tool_results) and not all(
            result.tool_call_id in self._terminating for result in context.tool_results
        )
        if goes_on and history_full(self._input):
            self._continuing = True  # the loop stops here; run() continues-as-new
            return True
        return False

    def _continue_if_full(self, input: AgentRunInput, *, resume: bool) -> None:  # noqa: A002
        """Continue-as-new when the turn loop stopped for it, or an idle history is full."""
        if resume and not self._continuing:
            return
        if not resume and not history_full(input):
            return
        messages = list(self._agent.messages)
        pending = undelivered(self._sent, messages)
        follow_ups = {id(m) for m in self._follow_ups}
        carried = Continued(
            resume=resume,
            steering=[message_to_json(m) for m in pending if id(m) not in follow_ups],
            follow_up=[message_to_json(m) for m in pending if id(m) in follow_ups],
            prompts=self._prompts,
            events_before=self._events_before + len(self._events),
            previous_runs=(input.continued.previous_runs + 1) if input.continued else 1,
            model=self._model_name,
            base_tools=[
                tool.model_dump(mode="json", by_alias=True, exclude_none=True)
                for tool in self._agent.state.base_tools
            ],
        )
        next_input = dataclasses.replace(
            input,
            prompt=[],
            messages=verbatim([message_to_json(m) for m in messages]),
            continued=carried,
        )
        workflow.continue_as_new(next_input)

    # -- signals and queries -----------------------------------------------------------------

    @workflow.signal
    def steer(self, message: JSON) -> None:
        """Queue a steering message (``Agent.steer``)."""
        queued = message_from_json(message)
        self._sent.append(queued)
        self._agent.steer(queued)

    @workflow.signal
    def follow_up(self, message: JSON) -> None:
        """Queue a follow-up message (``Agent.follow_up``)."""
        queued = message_from_json(message)
        self._sent.append(queued)
        self._follow_ups.append(queued)
        self._agent.follow_up(queued)

    @workflow.signal
    def prompt(self, messages: list[JSON]) -> None:
        """Queue the prompt of a next run (``keep_open`` workflows)."""
        self._prompts.append(messages)

    @workflow.signal
    def close(self) -> None:
        """Let a ``keep_open`` workflow complete once queued prompts have run."""
        self._closed = True

    @workflow.signal
    async def set_model(self, name: str) -> None:
        """Switch to the registry's model ``name`` from the next run on (``agent.model = ...``)."""
        self._switching += 1
        try:
            if name not in self._models:
                await self._describe([name], [])
            self._agent.model = self._models[name]
            self._model_name = name
        finally:
            self._switching -= 1

    @workflow.query
    def state(self) -> AgentRunState:
        """The Agent's state: transcript (pi JSON), model name, runtime fields."""
        state = self._agent.state
        return AgentRunState(
            model=self._model_name,
            messages=[message_to_json(m) for m in state.messages],
            is_streaming=state.is_streaming,
            pending_tool_calls=sorted(state.pending_tool_calls),
            error=state.error,
            events=self._events_before + len(self._events),
        )

    @workflow.query
    def events(self, after: int) -> list[JSON]:
        """The agent events from index ``after`` on (pi JSON; no ``message_update``).

        Indices count from the workflow's first run: after a continue-as-new, the events of
        the earlier runs are in those runs (:meth:`pi_sdk_temporal.AgentRun.events` reads them).
        """
        return self._events[max(0, after - self._events_before) :]

    # -- activities --------------------------------------------------------------------------

    async def _describe(self, models: list[str], tools: list[str]) -> WorkerCatalog:
        catalog = await workflow.execute_activity(
            DESCRIBE_ACTIVITY,
            args=[models, tools],
            result_type=WorkerCatalog,
            start_to_close_timeout=timedelta(seconds=60),
            retry_policy=_retry(self._settings),
        )
        for name, data in catalog.models.items():
            self._models[name] = Model.model_validate(data)
        return catalog

    def _name_of(self, model: Model) -> str:
        for name, known in self._models.items():
            if known is model:
                return name
        raise ActivityFailed(f"model {model.id!r} is not one of the registry's")

    async def _call_model(self, model: Model, context: Context, options: StreamOptions) -> _Reply:
        settings = self._settings
        call = ModelCall(
            model=self._name_of(model),
            context=verbatim(context.model_dump(mode="json", by_alias=True)),
            options={name: getattr(options, name) for name in STREAM_OPTION_FIELDS},
        )
        handle = workflow.start_activity(
            MODEL_ACTIVITY,
            call,
            result_type=dict,
            start_to_close_timeout=timedelta(seconds=settings.model_timeout_s),
            heartbeat_timeout=timedelta(seconds=settings.heartbeat_timeout_s),
            retry_policy=_retry(settings),
            cancellation_type=workflow.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
        )
        data: JSON = await _until_aborted(handle, options.signal)
        message = message_from_json(data)
        assert isinstance(message, AssistantMessage)
        return _Reply(model, message)

    def _remote_tool(self, spec: ToolSpec) -> AgentTool:
        settings = self._settings

        async def execute(
            tool_call_id: str, args: Any, signal: AbortSignal, on_update: Callable[..., None]
        ) -> AgentToolResult:
            handle = workflow.start_activity(
                TOOL_ACTIVITY,
                ToolRun(tool=spec.name, tool_call_id=tool_call_id, args=args),
                result_type=ToolOutcome,
                start_to_close_timeout=timedelta(seconds=settings.tool_timeout_s),
                heartbeat_timeout=timedelta(seconds=settings.heartbeat_timeout_s),
                retry_policy=_retry(settings),
                cancellation_type=workflow.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
            )
            outcome: ToolOutcome = await _until_aborted(handle, signal)
            if outcome.terminate:
                self._terminating.add(tool_call_id)
            if outcome.error is not None:
                raise ActivityFailed(outcome.error)
            return AgentToolResult(
                content=_CONTENT.validate_python(outcome.content),
                details=outcome.details,
                terminate=outcome.terminate,
            )

        return AgentTool(
            name=spec.name,
            description=spec.description,
            parameters=spec.parameters,
            execute=execute,
            label=spec.label,
            execution_mode=spec.execution_mode,  # pyright: ignore[reportArgumentType]
        )


def _observe_live() -> AbstractContextManager[object] | None:
    """The workflow's observer gate: none while replaying; else unrestricted by the sandbox."""
    if workflow.unsafe.is_replaying():
        return None
    return workflow.unsafe.sandbox_unrestricted()


def _retry(settings: ActivitySettings) -> RetryPolicy:
    # Only timeouts (a dead or hung worker) reach Temporal's retries: see ActivitySettings.
    return RetryPolicy(
        initial_interval=timedelta(seconds=settings.retry_initial_interval_s),
        backoff_coefficient=2.0,
        maximum_attempts=settings.max_attempts,
        non_retryable_error_types=["RegistryError"],
    )


async def _until_aborted(handle: Any, signal: AbortSignal | None) -> Any:
    """Await an activity; an abort of the run cancels it (its aborted answer still returns)."""
    remove = signal.add_callback(handle.cancel) if signal is not None else None
    try:
        return await handle
    except ActivityError as exc:
        cause = exc.cause
        text = cause.message if isinstance(cause, ApplicationError) else str(cause or exc)
        raise ActivityFailed(text) from None
    finally:
        if remove is not None:
            remove()
