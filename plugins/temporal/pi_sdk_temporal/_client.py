"""The client side: start an agent workflow, signal it, read its state and events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowHistoryEventFilterType,
)

from pi_sdk.agent import AgentMessage
from pi_sdk.types import TextContent, UserMessage

from ._check import check_input
from ._exit import settle_at_exit
from ._wire import JSON, AgentRunInput, AgentRunResult, AgentRunState, message_to_json
from ._workflow import AgentWorkflow

__all__ = ["AgentRun", "prompt_input", "start_agent"]

_CLOSED = frozenset(
    status for status in WorkflowExecutionStatus if status is not WorkflowExecutionStatus.RUNNING
)


def _message(message: AgentMessage | str) -> JSON:
    if isinstance(message, str):
        message = UserMessage(content=[TextContent(text=message)])
    return message_to_json(message)


def _prompt(prompt: AgentMessage | str | Sequence[AgentMessage]) -> list[JSON]:
    """A prompt as ``Agent.prompt`` takes it (text, a message, messages) as pi JSON."""
    if isinstance(prompt, str) or not isinstance(prompt, Sequence):
        return [_message(prompt)]
    return [_message(m) for m in prompt]


async def start_agent(
    client: Client,
    input: AgentRunInput,  # noqa: A002 - Temporal's word
    *,
    id: str,  # noqa: A002 - Temporal's word
    task_queue: str,
    workflow: type[AgentWorkflow] = AgentWorkflow,
    **options: Any,
) -> AgentRun:
    """Start an agent workflow and return its :class:`AgentRun`.

    Args:
        client: A connected Temporal client.
        input: Model and tool names, the prompt, the agent's settings.
        id: The workflow id (e.g. a conversation id).
        task_queue: The workers' task queue.
        workflow: :class:`~pi_sdk_temporal.AgentWorkflow` or a subclass the workers run.
        **options: Passed to ``Client.start_workflow`` (``id_reuse_policy``, timeouts...).

    Raises:
        ValueError: the input cannot run (see :func:`~pi_sdk_temporal._check.check_input`);
            nothing was started.
    """
    check_input(input)
    handle = await client.start_workflow(
        workflow.run, input, id=id, task_queue=task_queue, **options
    )
    return AgentRun(handle, client=client)


def prompt_input(
    model: str, prompt: AgentMessage | str | Sequence[AgentMessage], **fields: Any
) -> AgentRunInput:
    """An :class:`AgentRunInput` for a prompt given as on ``Agent.prompt`` (text or messages).

    ``fields`` are the other :class:`AgentRunInput` fields (``tools``, ``system_prompt``...).
    """
    return AgentRunInput(model=model, prompt=_prompt(prompt), **fields)


class AgentRun:
    """A running agent workflow, with the Agent's verbs.

    ``steer`` / ``follow_up`` / ``prompt`` / ``set_model`` / ``close`` are signals; ``abort``
    cancels the workflow; ``state`` and :meth:`events` are queries. A process that made one
    waits at exit until temporalio's native threads are out of Python (``docs/temporal.md``,
    "Exiting cleanly").
    """

    def __init__(
        self, handle: WorkflowHandle[Any, AgentRunResult], *, client: Client | None = None
    ) -> None:
        """Wrap ``handle``.

        With ``client`` (the handle's client), :meth:`events` follows the workflow across
        continue-as-new; without it, :meth:`events` reads the latest run only.
        """
        self.handle = handle
        self._client = client
        settle_at_exit()

    @property
    def id(self) -> str:
        """The workflow id."""
        return self.handle.id

    async def steer(self, message: AgentMessage | str) -> None:
        """``Agent.steer``: goes in before the next model call."""
        await self.handle.signal(AgentWorkflow.steer, _message(message))

    async def follow_up(self, message: AgentMessage | str) -> None:
        """``Agent.follow_up``: sent when the agent would otherwise stop."""
        await self.handle.signal(AgentWorkflow.follow_up, _message(message))

    async def prompt(self, prompt: AgentMessage | str | Sequence[AgentMessage]) -> None:
        """Queue the next run's prompt (a ``keep_open`` workflow)."""
        await self.handle.signal(AgentWorkflow.prompt, _prompt(prompt))

    async def set_model(self, name: str) -> None:
        """Switch to the registry's model ``name`` from the next run on."""
        await self.handle.signal(AgentWorkflow.set_model, name)

    async def close(self) -> None:
        """Let a ``keep_open`` workflow complete after its queued prompts."""
        await self.handle.signal(AgentWorkflow.close)

    async def abort(self) -> None:
        """``Agent.abort``: cancel the workflow; the run ends ``aborted``, the result is kept."""
        await self.handle.cancel()

    async def state(self) -> AgentRunState:
        """The ``state`` query."""
        return await self.handle.query(AgentWorkflow.state)

    async def result(self) -> AgentRunResult:
        """Wait for the workflow to complete; its transcript."""
        return await self.handle.result()

    async def events(self, *, after: int = 0, poll_s: float = 0.2) -> AsyncIterator[JSON]:
        """Every agent event from index ``after`` on, in the workflow's order, until it ends.

        Polls the ``events`` query every ``poll_s`` seconds: each event is yielded once, in
        order, with no gap, whichever worker ran it (the log is rebuilt the same on replay).
        A workflow that continued-as-new (a long run, ``docs/temporal.md``) is followed from
        run to run: each run's events are read from it before the next run's, and the indices
        go on (the next run starts with ``agent_start``, after its predecessor's
        ``agent_end``).
        """
        cursor = after
        run_id = self.handle.run_id or self.handle.first_execution_run_id
        while True:
            handle = (
                self.handle
                if self._client is None or run_id is None
                else self._client.get_workflow_handle(self.id, run_id=run_id)
            )
            batch = await handle.query(AgentWorkflow.events, cursor)
            for event in batch:
                yield event
            cursor += len(batch)
            if batch:
                continue
            description = await handle.describe()
            if description.status not in _CLOSED:
                await asyncio.sleep(poll_s)
                continue
            batch = await handle.query(AgentWorkflow.events, cursor)
            for event in batch:
                yield event
            cursor += len(batch)
            if description.status is not _CONTINUED or self._client is None:
                return
            run_id = await _next_run(handle)
            if run_id is None:
                return


_CONTINUED = WorkflowExecutionStatus.CONTINUED_AS_NEW


async def _next_run(handle: WorkflowHandle[Any, Any]) -> str | None:
    """The run a closed run continued-as-new into (its close event says)."""
    async for event in handle.fetch_history_events(
        event_filter_type=WorkflowHistoryEventFilterType.CLOSE_EVENT
    ):
        if event.HasField("workflow_execution_continued_as_new_event_attributes"):
            return event.workflow_execution_continued_as_new_event_attributes.new_execution_run_id
    return None
