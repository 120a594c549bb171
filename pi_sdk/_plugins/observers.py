"""Telling observers of model calls and agent runs (``on_model_call``, ``on_agent_event``).

Observers watch; they never steer. So unlike the other hooks, an observer that raises is logged
and skipped: tracing must not break the call or the run it traces. Both helpers cost one hook
lookup when no plugin observes anything.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Generator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from typing import TYPE_CHECKING, cast

import pluggy

from pi_sdk._plugins.calling import hook_implementations
from pi_sdk._plugins.manager import PluginManager

if TYPE_CHECKING:
    from pi_sdk._wire.agent_types import AgentEvent
    from pi_sdk.options import StreamOptions
    from pi_sdk.types import AssistantMessage, Context, Model

__all__ = [
    "ObserverGate",
    "agent_event_observers",
    "current_run_id",
    "gate_observers",
    "notify_agent_event",
    "start_model_call",
]

logger = logging.getLogger("pi_sdk.plugins")

current_run_id: ContextVar[str | None] = ContextVar("pi_sdk_run_id", default=None)
"""The id of the agent run whose code is running (set by the agent loop for the whole run)."""

Finish = Callable[["AssistantMessage"], None]

ObserverGate = Callable[[], "AbstractContextManager[object] | None"]
"""Asked before observers are told anything: ``None`` skips them, else they run inside the
context manager it returns (see :func:`gate_observers`)."""

_gate: ContextVar[ObserverGate | None] = ContextVar("pi_sdk_observer_gate", default=None)


@contextmanager
def gate_observers(gate: ObserverGate) -> Generator[None]:
    """Tell observers (``on_agent_event``, ``on_model_call``) only what ``gate`` lets through.

    While the ``with`` block runs, in its context and the tasks started from it (a
    ``ContextVar``), each time observers would be told of an event or a model call ``gate()``
    is asked first: ``None`` skips every observer for that event or call; otherwise the
    observers run inside the context manager returned. The run or call itself goes on either
    way: observers watch, they never steer.

    Built for code that runs more than once for one real event, such as a Temporal workflow
    replayed from its history (``pi-sdk-temporal`` passes a gate that returns ``None`` while
    the workflow replays, and lifts the workflow sandbox's restrictions otherwise).

    Example:
        ```python
        from contextlib import nullcontext

        with gate_observers(lambda: None if replaying() else nullcontext()):
            await agent.prompt("...")
        ```
    """
    token = _gate.set(gate)
    try:
        yield
    finally:
        _gate.reset(token)


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
    gets them without a lookup. A :func:`gate_observers` gate in effect decides first.
    """
    gate = _gate.get()
    if gate is None:
        await _notify(observers, event, run_id, model)
        return
    scope = gate()
    if scope is not None:
        with scope:
            await _notify(observers, event, run_id, model)


async def _notify(
    observers: list[pluggy.HookImpl], event: AgentEvent, run_id: str, model: Model
) -> None:
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
    model: Model,
    context: Context,
    options: StreamOptions,
    run_id: str | None,
    manager: PluginManager | None = None,
) -> Finish | None:
    """Call every ``on_model_call`` implementation; return one ``finish`` for their answers.

    The implementations are the active manager's, or ``manager``'s. ``None`` when no
    implementation returned a callable, or when a :func:`gate_observers` gate skips the call.
    The ``finish`` returned calls each answer with the final message, logging (and skipping
    past) any that raises; under a gate, inside the context manager it returns then (a call
    the gate let start is always finished).
    """
    gate = _gate.get()
    if gate is None:
        return _start(model, context, options, run_id, manager)
    scope = gate()
    if scope is None:
        return None
    with scope:
        finish = _start(model, context, options, run_id, manager)
    if finish is None:
        return None

    def finish_gated(message: AssistantMessage) -> None:
        with gate() or nullcontext():
            finish(message)

    return finish_gated


def _start(
    model: Model,
    context: Context,
    options: StreamOptions,
    run_id: str | None,
    manager: PluginManager | None,
) -> Finish | None:
    finishers: list[tuple[str, Finish]] = []
    for impl in hook_implementations("on_model_call", manager):
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
