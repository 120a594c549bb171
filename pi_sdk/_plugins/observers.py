"""Telling observers of model calls and agent runs (``on_model_call``, ``on_agent_event``).

Observers watch; they never steer. So unlike the other hooks, an observer that raises is logged
and skipped: tracing must not break the call or the run it traces. Both helpers cost one hook
lookup when no plugin observes anything.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, cast

import pluggy

from pi_sdk._plugins.calling import hook_implementations

if TYPE_CHECKING:
    from pi_sdk._wire.agent_types import AgentEvent
    from pi_sdk.options import StreamOptions
    from pi_sdk.types import AssistantMessage, Context, Model

__all__ = ["agent_event_observers", "current_run_id", "notify_agent_event", "start_model_call"]

logger = logging.getLogger("pi_sdk.plugins")

current_run_id: ContextVar[str | None] = ContextVar("pi_sdk_run_id", default=None)
"""The id of the agent run whose code is running (set by the agent loop for the whole run)."""

Finish = Callable[["AssistantMessage"], None]


def _skip(hook: str, plugin: str, exc: Exception) -> None:
    logger.error("observer hook %r of plugin %r failed; ignored", hook, plugin, exc_info=exc)


_EVENT_ARGS = ("event", "run_id", "model")


def agent_event_observers() -> list[pluggy.HookImpl]:
    """The ``on_agent_event`` implementations now, in plugin order (read once per run)."""
    return hook_implementations("on_agent_event")


async def notify_agent_event(
    observers: list[pluggy.HookImpl], event: AgentEvent, run_id: str, model: Model
) -> None:
    """Call each of ``observers`` with ``event`` (awaiting an async one); failures are logged.

    Called for every event of a run (one per streamed delta), so it calls the implementations
    directly: no coroutine is made for a plain ``def`` one, and one that takes every argument
    gets them without a lookup.
    """
    for impl in observers:
        try:
            if impl.argnames == _EVENT_ARGS:
                result = impl.function(event, run_id, model)
            else:
                values = {"event": event, "run_id": run_id, "model": model}
                result = impl.function(*[values[name] for name in impl.argnames])
            if result is not None and inspect.isawaitable(result):
                await result
        except Exception as exc:  # noqa: BLE001 - an observer never breaks a run
            _skip("on_agent_event", impl.plugin_name, exc)


def start_model_call(
    model: Model, context: Context, options: StreamOptions, run_id: str | None
) -> Finish | None:
    """Call every ``on_model_call`` implementation; return one ``finish`` for their answers.

    ``None`` when no implementation returned a callable. The ``finish`` returned calls each
    answer with the final message, logging (and skipping past) any that raises.
    """
    finishers: list[tuple[str, Finish]] = []
    for impl in hook_implementations("on_model_call"):
        kwargs = {"model": model, "context": context, "options": options, "run_id": run_id}
        try:
            answer = impl.function(*[kwargs[name] for name in impl.argnames])
        except Exception as exc:  # noqa: BLE001 - an observer never breaks a call
            _skip("on_model_call", impl.plugin_name, exc)
            continue
        if callable(answer):
            finishers.append((impl.plugin_name, cast("Finish", answer)))
    if not finishers:
        return None

    def finish(message: AssistantMessage) -> None:
        for plugin, answer in finishers:
            try:
                answer(message)
            except Exception as exc:  # noqa: BLE001 - an observer never breaks a call
                _skip("on_model_call", plugin, exc)

    return finish
