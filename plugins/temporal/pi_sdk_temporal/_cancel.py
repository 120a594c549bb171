"""Run an activity's work with heartbeats; a Temporal cancellation becomes a pi abort.

Temporal delivers an activity's cancellation as :class:`asyncio.CancelledError` at the
activity's next await, and only to an activity that heartbeats. The work runs in its own task
with an :class:`pi_sdk.AbortSignal`. When the workflow asked for the cancellation (the run was
aborted), the signal aborts and the work's own answer (an ``aborted`` assistant message with its
partial content, a tool's result) is still returned, as a plain Agent would keep it. Any other
cancellation (the worker shuts down, the server timed the attempt out) cancels the work and
propagates, so that Temporal runs the call again on another worker instead of recording an
abort nobody asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio import activity

from pi_sdk import AbortController, AbortSignal

__all__ = ["run_with_heartbeats"]

T = TypeVar("T")

_DEFAULT_INTERVAL_S = 10.0


async def run_with_heartbeats(work: Callable[[AbortSignal], Awaitable[T]]) -> T:
    """Run ``work(signal)``, heartbeating at a third of the heartbeat timeout.

    Returns:
        What ``work`` returned, also after a cancellation (then ``signal`` was aborted first).
    """
    controller = AbortController()
    task = asyncio.ensure_future(work(controller.signal))
    beating = asyncio.ensure_future(_heartbeat())
    try:
        while True:
            try:
                return await asyncio.shield(task)
            except asyncio.CancelledError:
                if task.done():
                    raise
                if not _requested_by_workflow():
                    task.cancel()
                    await asyncio.wait([task])
                    raise
                controller.abort("The run was aborted (Temporal cancelled the activity)")
    finally:
        beating.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beating


def _requested_by_workflow() -> bool:
    details = activity.cancellation_details()
    return details is not None and details.cancel_requested and not details.worker_shutdown


async def _heartbeat() -> None:
    timeout = activity.info().heartbeat_timeout
    interval = timeout.total_seconds() / 3 if timeout else _DEFAULT_INTERVAL_S
    while True:
        activity.heartbeat()
        await asyncio.sleep(interval)
