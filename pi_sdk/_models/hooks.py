"""The plugin hooks a collection's calls run: ``on_payload`` and the ``on_model_call`` observers.

A :class:`~pi_sdk.Models` collection names whose hooks its calls run (``plugins=``): the
active plugin manager at each call (the default, so installed tracing and payload plugins see
every collection's calls), one manager of its own, or none. ``StreamOptions.on_payload`` always
runs, last (pi-mono ``onPayload``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Literal

from pi_sdk._plugins.calling import call_hook_implementation, hook_implementations
from pi_sdk._plugins.manager import PluginManager, get_plugin_manager
from pi_sdk._plugins.observers import Finish, current_run_id, start_model_call
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Context, Model

__all__ = ["manager_of", "observe_call", "run_payload_hooks"]


def manager_of(plugins: PluginManager | Literal["active"] | None) -> PluginManager | None:
    """The plugin manager ``plugins`` stands for now (``"active"``: the active one)."""
    return get_plugin_manager() if plugins == "active" else plugins


def observe_call(
    model: Model,
    context: Context,
    options: StreamOptions,
    plugins: PluginManager | Literal["active"],
) -> Callable[[], Callable[[AssistantMessage], None] | None]:
    """The ``observe`` callable of a call's stream: tells the observers when it starts.

    The agent run id is read now (the stream is made inside the run), the observers when the
    stream is first read (the call starts).
    """
    run_id = current_run_id.get()

    def observe() -> Finish | None:
        return start_model_call(model, context, options, run_id, manager_of(plugins))

    return observe


async def run_payload_hooks(
    payload: dict[str, Any],
    model: Model,
    options: StreamOptions,
    manager: PluginManager | None,
) -> dict[str, Any]:
    """Run ``manager``'s ``on_payload`` hooks, then ``options.on_payload``; return the payload.

    Each hook may mutate the payload in place or return a replacement; async hooks are awaited
    (pi-mono ``onPayload``).

    Raises:
        TypeError: a hook returned something other than ``None`` or a dict (the call then ends
            in an ``error`` event naming the hook; nothing is sent).
    """
    if manager is not None:
        for impl in hook_implementations("on_payload", manager):  # plugin order
            result = await call_hook_implementation(impl, payload=payload, model=model)
            payload = _payload_result(result, payload, f"on_payload of plugin {impl.plugin_name!r}")
    if options.on_payload is not None:
        result = options.on_payload(payload, model)
        if inspect.isawaitable(result):
            result = await result
        payload = _payload_result(result, payload, "StreamOptions.on_payload")
    return payload


def _payload_result(result: object, payload: dict[str, Any], hook: str) -> dict[str, Any]:
    if result is None:
        return payload
    if isinstance(result, dict):
        return result  # pyright: ignore[reportUnknownVariableType]
    raise TypeError(f"{hook} returned {type(result).__name__}; return None or a dict")
