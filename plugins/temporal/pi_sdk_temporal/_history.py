"""Keep a workflow's history bounded: when to continue-as-new, and what goes over.

Temporal fails a workflow whose history passes 51,200 events or 50 MiB, and every model call
records its request (the converted transcript) and its reply, so a long run's history grows
with the square of its length. The agent workflow continues-as-new at the end of a turn (the
loop would go on: the turn called tools that did not end the run) once the history reaches the
input's limits (``history_max_events`` / ``history_max_bytes``) or, without them, once Temporal
suggests it. The next run starts from the whole transcript and the queues; nothing is lost or
repeated: the turn's tool results are in the transcript, the next model call is the next turn's.
"""

from __future__ import annotations

from collections.abc import Sequence

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from pi_sdk.agent import AgentMessage

    from ._wire import AgentRunInput

__all__ = ["history_full", "undelivered"]


def history_full(input: AgentRunInput) -> bool:  # noqa: A002 - the workflow's input
    """True when this run's history reached the input's limits (or Temporal's suggestion)."""
    info = workflow.info()
    if input.history_max_events is None and input.history_max_bytes is None:
        return info.is_continue_as_new_suggested()
    events, size = input.history_max_events, input.history_max_bytes
    return (events is not None and info.get_current_history_length() >= events) or (
        size is not None and info.get_current_history_size() >= size
    )


def undelivered(
    sent: Sequence[AgentMessage], transcript: Sequence[AgentMessage]
) -> list[AgentMessage]:
    """The messages of ``sent`` (steering, follow-ups) that are not in ``transcript`` yet.

    The loop adds the queued object itself to the transcript, so identity tells them apart,
    including one the loop took from the queue but had not added when the turn ended.
    """
    delivered = {id(message) for message in transcript}
    return [message for message in sent if id(message) not in delivered]
