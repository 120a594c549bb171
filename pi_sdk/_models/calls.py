"""Top-level calls: stream(), complete(), complete_sync() and helpers providers share."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from pi_sdk._models.registry import get_api_key, get_api_provider
from pi_sdk._stream.event_stream import AssistantMessageEventStream
from pi_sdk._wire.redact import secret_header_values
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Context, Model

__all__ = ["apply_payload_hooks", "complete", "complete_sync", "resolve_api_key", "stream"]


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Call ``model`` and return its normalized event stream.

    Args:
        model: The model; ``model.api`` picks the registered provider.
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
    from pi_sdk._plugins.observers import current_run_id, start_model_call

    options = options or StreamOptions()
    provider = get_api_provider(model.api)
    run_id = current_run_id.get()
    return AssistantMessageEventStream(
        lambda: provider.stream(model, context, options),
        model=model,
        signal=options.signal,
        max_retries=options.max_retries,
        max_retry_delay_ms=options.max_retry_delay_ms,
        timeout_ms=options.timeout_ms,
        idle_timeout_ms=options.idle_timeout_ms,
        secrets=lambda: (
            options.api_key,
            get_api_key(model.provider),
            *secret_header_values(options.headers),
            *secret_header_values(model.headers),
        ),
        context=context,
        output=options.resolved_output(),
        observe=lambda: start_model_call(model, context, options, run_id),
    )


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
    """Return ``options.api_key``, else the ``get_api_key`` plugin answer for ``model.provider``."""
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
    from pi_sdk._plugins.calling import call_hook_implementation, hook_implementations

    for impl in hook_implementations("on_payload"):  # plugin order (see pi_sdk.plugins)
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
