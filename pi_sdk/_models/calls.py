"""The module-level calls ``stream()``, ``complete()``, ``complete_sync()``: the default collection.

Also the two helpers a provider's stream function calls: :func:`resolve_api_key` and
:func:`apply_payload_hooks` (exported to provider authors through :mod:`pi_sdk.provider`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from pi_sdk._models.default import default_models, get_api_key
from pi_sdk._models.hooks import run_payload_hooks
from pi_sdk._plugins.manager import get_plugin_manager
from pi_sdk._stream.event_stream import AssistantMessageEventStream
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Context, Model

__all__ = ["apply_payload_hooks", "complete", "complete_sync", "resolve_api_key", "stream"]


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Call ``model`` and return its normalized event stream.

    Args:
        model: The model; ``model.api`` picks the wire-API implementation of the default
            collection (:func:`pi_sdk.default_models`; a :class:`pi_sdk.Models` of your own has
            the same method).
        context: System prompt, messages and tools.
        options: Per-call options (abort signal, reasoning level, max tokens, ...).

    Returns:
        An :class:`AssistantMessageEventStream`. Nothing is sent until it is iterated (or
        ``result()`` is awaited). Once it runs, failures are data: the stream ends with an
        ``error`` event and the message has ``stop_reason`` ``"error"`` or ``"aborted"``.

    Raises:
        ProviderNotFoundError: no provider is registered for ``model.api`` (pi-mono throws
            synchronously here too).
    """
    return default_models().stream(model, context, options)


async def complete(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessage:
    """Call ``model`` and return the final message (``await stream(...).result()``).

    Never raises for API failures; check ``stop_reason`` or call ``raise_for_error()``.
    With ``StreamOptions(output=...)`` the message's ``output`` holds the typed answer (a
    :class:`pi_sdk.options.StructuredOutput`; docs/structured-output.md).
    """
    return await stream(model, context, options).result()


def complete_sync(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessage:
    """Synchronous :func:`complete` for scripts.

    Raises:
        RuntimeError: called from inside a running event loop (use ``await complete(...)``).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(complete(model, context, options))
    raise RuntimeError(
        "complete_sync() cannot run inside a running event loop; use `await pi_sdk.complete(...)`"
    )


def resolve_api_key(model: Model, options: StreamOptions) -> str | None:
    """``options.api_key`` (a collection puts its key there), else the default collection's key.

    For a provider's stream function: a call made through a :class:`pi_sdk.Models` collection
    arrives with the collection's key in ``options.api_key`` already.
    """
    return options.api_key or get_api_key(model.provider)


async def apply_payload_hooks(
    payload: dict[str, Any], model: Model, options: StreamOptions
) -> dict[str, Any]:
    """Run the ``on_payload`` plugin hooks, then ``options.on_payload``; return the final payload.

    Each hook may mutate the payload in place or return a replacement; async hooks are awaited.
    Providers call this just before sending (pi-mono ``onPayload``).

    Raises:
        TypeError: a hook returned something other than ``None`` or a dict (the call then ends
            in an ``error`` event naming the hook; nothing is sent).
    """
    return await run_payload_hooks(payload, model, options, get_plugin_manager())
