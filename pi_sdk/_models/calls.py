"""Top-level calls: stream(), complete(), complete_sync() and helpers providers share.

A call is started by :func:`stream_with` (the injection point, below): the provider, and the
:class:`~pi_sdk._stream.call_scope.CallScope` through which the stream machinery (layer 1) reaches
what lives above it, the key lookup and the payload hooks. :func:`stream` starts it on the
default registry (:func:`default_scope`).
"""

from __future__ import annotations

import asyncio
import inspect
from functools import partial
from typing import Any

from pi_sdk._models.registry import get_api_key, get_api_provider
from pi_sdk._stream.call_scope import CallScope, current_scope
from pi_sdk._stream.contract import ApiProvider
from pi_sdk._stream.event_stream import AssistantMessageEventStream
from pi_sdk._stream.read_loop import ReadLoop
from pi_sdk._wire.redact import secret_header_values
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Context, Model

__all__ = [
    "apply_payload_hooks",
    "complete",
    "complete_sync",
    "default_scope",
    "resolve_api_key",
    "run_payload_hooks",
    "stream",
    "stream_with",
]


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
    options = options or StreamOptions()
    return stream_with(get_api_provider(model.api), model, context, options, default_scope())


# --- the injection point: a call, its provider and its scope ----------------------------------


def default_scope() -> CallScope:
    """The scope of a call on the default registry.

    Its key lookup is the ``get_api_key`` plugin hooks; its payload hooks the ``on_payload``
    plugins, then ``StreamOptions.on_payload`` (:func:`run_payload_hooks`).
    """
    return CallScope(api_key=get_api_key, payload_hooks=run_payload_hooks)


def stream_with(
    provider: ApiProvider,
    model: Model,
    context: Context,
    options: StreamOptions,
    scope: CallScope,
) -> AssistantMessageEventStream:
    """Start a call of ``model`` on ``provider``, in ``scope``: the one place a call starts.

    A collection of models that holds its own providers, keys and hooks (not the default
    registry's) calls this with its provider for ``model.api`` and a scope of its own:
    ``CallScope(api_key=<its key lookup>, payload_hooks=<its payload hooks>)``. The provider's
    code finds that scope through :func:`resolve_api_key` / :func:`apply_payload_hooks`, the
    core's read loop runs its payload hooks, and its key is redacted from error messages.

    Returns:
        The call's stream: the core's read loop over ``provider.call``'s plan, or
        ``provider.stream``'s generator with every event checked. Nothing is sent until it is
        iterated.
    """
    from pi_sdk._plugins.observers import current_run_id, start_model_call

    start: Any
    if provider.call is not None:
        start = ReadLoop(provider.call, model, context, options)
    else:
        assert provider.stream is not None  # ApiProvider holds one of the two
        start = partial(provider.stream, model, context, options)
    lookup = scope.api_key or get_api_key
    run_id = current_run_id.get()
    return AssistantMessageEventStream(
        start,
        model=model,
        signal=options.signal,
        max_retries=options.max_retries,
        max_retry_delay_ms=options.max_retry_delay_ms,
        timeout_ms=options.timeout_ms,
        idle_timeout_ms=options.idle_timeout_ms,
        secrets=lambda: (
            options.api_key,
            lookup(model.provider),
            *secret_header_values(options.headers),
            *secret_header_values(model.headers),
        ),
        context=context,
        output=options.resolved_output(),
        observe=lambda: start_model_call(model, context, options, run_id),
        scope=scope,
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
    """Return ``options.api_key``, else the key of ``model.provider`` (``None``: none known).

    The key lookup is the call's (its :class:`~pi_sdk._stream.call_scope.CallScope`: a
    provider's call function, or its stream function before its first event, runs in it), else
    the default registry's ``get_api_key`` plugin hooks.
    """
    if options.api_key:
        return options.api_key
    scope = current_scope.get()
    lookup = scope.api_key if scope is not None and scope.api_key is not None else get_api_key
    return lookup(model.provider)


async def apply_payload_hooks(
    payload: dict[str, Any], model: Model, options: StreamOptions
) -> dict[str, Any]:
    """Run the call's payload hooks on ``payload``; return the payload to send (``onPayload``).

    For a stream function that builds its payload itself (the core's read loop runs the hooks
    of a call plan). The hooks are the call's
    (:class:`~pi_sdk._stream.call_scope.CallScope`; none when its scope has none), else, outside
    a call, the default registry's (:func:`run_payload_hooks`).

    Raises:
        TypeError: a hook returned something other than ``None`` or a dict (the call then ends
            in an ``error`` event naming the hook; nothing is sent).
    """
    scope = current_scope.get()
    if scope is None:
        return await run_payload_hooks(payload, model, options)
    if scope.payload_hooks is None:
        return payload
    return await scope.payload_hooks(payload, model, options)


async def run_payload_hooks(
    payload: dict[str, Any], model: Model, options: StreamOptions
) -> dict[str, Any]:
    """Run the ``on_payload`` plugin hooks, then ``options.on_payload``; return the final payload.

    Each hook may mutate the payload in place or return a replacement; async hooks are awaited.

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
