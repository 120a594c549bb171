"""The module-level calls ``stream()``, ``complete()``, ``complete_sync()``: the default collection.

Also the two helpers a provider's stream function calls, :func:`resolve_api_key` and
:func:`apply_payload_hooks` (exported to provider authors through :mod:`pi_sdk.provider`): they
read the scope of the call they run in (:class:`~pi_sdk._stream.call_scope.CallScope`, put there
by the collection that started it), else, outside a call, the default collection's.

The registries, the plugin manager and the stream machinery are imported by the first call, not
with this module: ``pi_sdk.stream`` is one of the names a program touches at start-up (issue 32,
item 2: first use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_sdk._models.count_tokens import TokenCount
    from pi_sdk._stream.event_stream import AssistantMessageEventStream
    from pi_sdk.options import StreamOptions
    from pi_sdk.types import AssistantMessage, Context, Model

__all__ = [
    "apply_payload_hooks",
    "complete",
    "complete_sync",
    "count_tokens",
    "resolve_api_key",
    "stream",
]


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
        TypeError: an argument of the wrong kind (a ``"provider/id"`` string for the model: use
            :func:`pi_sdk.get_model`).
        ProviderNotFoundError: no provider is registered for ``model.api`` (pi-mono throws
            synchronously here too).
    """
    from pi_sdk._models.default import default_models

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


async def count_tokens(
    model: Model, context: Context, options: StreamOptions | None = None
) -> TokenCount:
    """The input tokens a call of ``model`` with ``context`` takes, and where the figure is from.

    The vendor's counting endpoint where the wire API has one (Anthropic Messages
    ``count_tokens``, Gemini ``countTokens``, OpenAI Responses input-token counting), else
    pi's estimate (:func:`pi_sdk.agent.estimate_context_tokens`). A failing endpoint falls
    back to the estimate: :attr:`TokenCount.source` is ``"estimate"`` and ``reason`` says why.
    The default collection's :meth:`pi_sdk.Models.count_tokens`.

    Returns:
        A :class:`pi_sdk.TokenCount` (``tokens``, ``source``, ``reason``).

    Raises:
        ProviderNotFoundError: no provider serves ``model.api``.
    """
    from pi_sdk._models.default import default_models

    return await default_models().count_tokens(model, context, options)


def complete_sync(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessage:
    """Synchronous :func:`complete` for scripts.

    Raises:
        RuntimeError: called from inside a running event loop (use ``await complete(...)``).
    """
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(complete(model, context, options))
    raise RuntimeError(
        "complete_sync() cannot run inside a running event loop; use `await pi_sdk.complete(...)`"
    )


def resolve_api_key(model: Model, options: StreamOptions) -> str | None:
    """``options.api_key``, else the key of ``model.provider`` (``None``: none known).

    The key lookup is the call's (a provider's call function, or its stream function before its
    first event, runs in the scope of the collection that started the call), else the default
    collection's.
    """
    if options.api_key:
        return options.api_key
    from pi_sdk._models.default import get_api_key
    from pi_sdk._stream.call_scope import current_scope

    scope = current_scope.get()
    lookup = scope.api_key if scope is not None and scope.api_key is not None else get_api_key
    return lookup(model.provider)


async def apply_payload_hooks(
    payload: dict[str, Any], model: Model, options: StreamOptions
) -> dict[str, Any]:
    """Run the call's payload hooks on ``payload``; return the payload to send (``onPayload``).

    For a stream function that builds its payload itself (the core's read loop runs the hooks
    of a call plan). The hooks are the call's (none when its scope has none), else, outside a
    call, the active plugin manager's ``on_payload`` hooks, then ``options.on_payload``.

    Raises:
        TypeError: a hook returned something other than ``None`` or a dict (the call then ends
            in an ``error`` event naming the hook; nothing is sent).
    """
    from pi_sdk._stream.call_scope import current_scope

    scope = current_scope.get()
    if scope is None:
        from pi_sdk._models.hooks import run_payload_hooks
        from pi_sdk._plugins.manager import get_plugin_manager

        return await run_payload_hooks(payload, model, options, get_plugin_manager())
    if scope.payload_hooks is None:
        return payload
    return await scope.payload_hooks(payload, model, options)
