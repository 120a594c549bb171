"""The plugin contract: pluggy hook specifications. This module is the plugin reference.

A plugin is a module (or any object) with functions marked ``@pi_sdk.hookimpl`` and named after
the hooks below, published through an entry point in the ``pi_sdk`` group (see
:mod:`pi_sdk.plugins`):

```python
import os

import pi_sdk

@pi_sdk.hookimpl
def get_api_key(provider):
    return os.environ.get("ECHO_API_KEY") if provider == "echo" else None
```

Rules common to every hook:

* **Keyword arguments only.** pi-sdk calls every hook with keyword arguments. An implementation
  declares the parameters it wants, by name, as plain parameters: any subset of the spec's, in
  any order (pluggy's opt-in arguments), so a spec can gain arguments without breaking plugins.
  Keyword-only parameters (after ``*``) are rejected at registration: pluggy never passes them.
* **Plugin order.** Where several plugins answer, they run in pluggy's call order:
  ``@hookimpl(tryfirst=True)`` implementations first, then the others from the most recently
  registered plugin to the earliest, then ``trylast=True`` ones (entry-point plugins register in
  alphabetical order of entry-point name). Pin a position with ``tryfirst`` / ``trylast``.
* **Sync or async.** ``on_payload``, ``before_tool_call``, ``after_tool_call``,
  ``prepare_request``, ``finish_turn`` and ``on_agent_event`` may be ``async def``: pi-sdk
  awaits any awaitable an implementation returns. The registration hooks, ``get_api_key`` and
  ``on_model_call`` run synchronously and must be plain ``def`` (rejected otherwise).
* **Unknown names are errors.** An implementation whose name matches no hook here is rejected
  when the plugin loads (with a did-you-mean), unless marked ``@hookimpl(optionalhook=True)``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import pluggy

if TYPE_CHECKING:
    from pi_sdk._stream.contract import ApiProvider
    from pi_sdk._stream.provider import Provider
    from pi_sdk._wire.abort import AbortSignal
    from pi_sdk._wire.agent_types import (
        AfterToolCallContext,
        AfterToolCallResult,
        AgentEvent,
        BeforeToolCallContext,
        BeforeToolCallResult,
    )
    from pi_sdk._wire.loop_config import (
        AgentRequestUpdate,
        AgentTurnContext,
        AgentTurnDecision,
        PrepareRequestContext,
    )
    from pi_sdk.options import StreamOptions
    from pi_sdk.types import AssistantMessage, Context, Model

__all__ = [
    "RegisterApiProvider",
    "RegisterModel",
    "RegisterProvider",
    "after_tool_call",
    "before_tool_call",
    "finish_turn",
    "get_api_key",
    "hookimpl",
    "hookspec",
    "on_agent_event",
    "on_model_call",
    "on_payload",
    "prepare_request",
    "register_api_providers",
    "register_message_types",
    "register_models",
    "register_providers",
]


class RegisterApiProvider(Protocol):
    """The ``register`` callable handed to ``register_api_providers`` (annotate with it)."""

    def __call__(self, provider: ApiProvider, *, replace: bool = False) -> None:
        """Register ``provider`` (see :func:`pi_sdk.register_api_provider`)."""
        ...


class RegisterProvider(Protocol):
    """The ``register`` callable handed to ``register_providers`` (annotate with it)."""

    def __call__(self, provider: Provider, *, replace: bool = False) -> None:
        """Register ``provider`` (see :func:`pi_sdk.register_provider`)."""
        ...


class RegisterModel(Protocol):
    """The ``register`` callable handed to ``register_models`` (annotate with it)."""

    def __call__(self, model: Model, *, replace: bool = True) -> None:
        """Register ``model`` (see :func:`pi_sdk.register_model`)."""
        ...


hookspec = pluggy.HookspecMarker("pi_sdk")
"""Marks a hook specification (pi-sdk's own use)."""
hookimpl = pluggy.HookimplMarker("pi_sdk")
"""Marks a hook implementation in a plugin; re-exported as ``pi_sdk.hookimpl``."""


@hookspec
def register_providers(register: RegisterProvider) -> None:
    """Register :class:`pi_sdk.Provider` objects: a provider's auth, catalog and wire APIs.

    The way a provider package is published (pi-ai 1.6 ``createProvider``). Most packages need
    no hook function: an entry point that names a ``Provider`` object, or a sequence of them
    (``acme = "pi_sdk_acme:PROVIDERS"``), is registered through this hook for them. Called once
    per plugin manager, on the first access to the default collection, never at import.

    Combination: every implementation registers; providers sharing an id are merged (their
    catalogs and wire APIs join; a setting two of them give differently is an error), unless
    ``replace=True``, which drops what was registered under that id before.

    Args:
        register: ``register(provider: pi_sdk.Provider, *, replace: bool = False)``.

    Raises:
        ConfigurationError: (from ``register``) two providers with one id disagree on a setting.
    """


@hookspec
def register_api_providers(register: RegisterApiProvider) -> None:
    """Register wire-API implementations (pi-mono ``registerApiProvider``).

    Called once per plugin manager, on the first registry access (``pi_sdk.stream``,
    ``pi_sdk.get_api_provider``, ...), never at import.

    Args:
        register: ``register(provider: pi_sdk.provider.ApiProvider, *, replace: bool = False)``;
            call it once per API the plugin implements. ``provider.api`` is the key (e.g.
            ``"anthropic-messages"``); one API can serve many providers' models.

    Raises:
        ConfigurationError: (from ``register``) another plugin already serves that ``api`` and
            ``replace`` is false. pi-mono overwrites silently; pi-sdk refuses so a clash is
            visible.

    The provider's ``stream`` function must import its vendor SDK lazily (inside the function):
    importing ``pi_sdk`` and the plugin's top-level module must stay cheap.
    """


@hookspec
def register_models(register: RegisterModel) -> None:
    """Register catalog models (pi-mono ``models.generated.ts``).

    Called once per plugin manager, on the first registry access.

    Args:
        register: ``register(model: pi_sdk.Model, *, replace: bool = True)``. Models are keyed
            by ``(model.provider, model.id)``; a later registration of the same key replaces the
            earlier one unless ``replace=False`` (then ``ConfigurationError``).
    """


@hookspec(firstresult=True)
def get_api_key(provider: str) -> str | None:
    """Return the API key for ``provider`` (e.g. ``"anthropic"``), or ``None`` if unknown.

    Combination: the first non-``None`` answer in plugin order wins and the rest are not
    called (pluggy ``firstresult``). An explicit ``StreamOptions.api_key`` always wins over every
    plugin. Each provider package answers for its own environment variables, so the core names
    no vendor (pi-mono ``getEnvApiKey``). Must be a plain ``def``; never log the key.

    Args:
        provider: The model's ``provider`` field.

    Returns:
        The key, or ``None`` to let the next plugin answer.
    """


@hookspec
def on_payload(
    payload: dict[str, Any], model: Model
) -> dict[str, Any] | None | Awaitable[dict[str, Any] | None]:
    """Inspect or change a request body just before a provider sends it (pi-mono ``onPayload``).

    Combination: implementations run one after another in plugin order, each seeing the payload
    the previous one left: mutate ``payload`` in place, or return a replacement dict (``None``
    keeps it). ``StreamOptions.on_payload`` runs last. May be ``async def``.

    Args:
        payload: The vendor request body (JSON-ready dict), API key not included.
        model: The model being called.

    Returns:
        ``None`` or a replacement payload (or an awaitable of either).
    """


@hookspec
def before_tool_call(
    context: BeforeToolCallContext, signal: AbortSignal | None
) -> BeforeToolCallResult | None | Awaitable[BeforeToolCallResult | None]:
    """Inspect a validated tool call before it runs; may block it (pi-mono ``beforeToolCall``).

    Called by the agent loop for every tool call whose tool exists and whose arguments
    validated, after the Agent's own ``before_tool_call`` callable allowed it (a block there
    means no plugin is asked). May be ``async def``.

    Combination: implementations run in plugin order and **any block wins**: the first answer
    with ``block=True`` stops the others from running, and its ``reason`` (default "Tool
    execution was blocked") becomes the text of the error tool result the model reads; the tool
    does not run and ``after_tool_call`` is not called. An implementation that raises blocks the
    call too (fail closed), with a reason naming the plugin and the error.

    Args:
        context: A :class:`pi_sdk.BeforeToolCallContext`: ``assistant_message`` (the message
            holding the call), ``tool_call`` (the raw block), ``args`` (validated arguments),
            ``context`` (the agent context: system prompt, messages, tools).
        signal: The run's abort signal (honour it in anything slow, e.g. asking a human).

    Returns:
        ``None`` to allow, or a :class:`pi_sdk.BeforeToolCallResult` (or an awaitable of either).
    """


@hookspec
def after_tool_call(
    context: AfterToolCallContext, signal: AbortSignal | None
) -> AfterToolCallResult | None | Awaitable[AfterToolCallResult | None]:
    """Inspect or change a tool result after the tool ran (pi-mono ``afterToolCall``).

    Called by the agent loop for every executed tool call (blocked, unknown or invalid calls
    never ran and are not passed here), after the Agent's own ``after_tool_call`` callable, so
    plugins see its changes. May be ``async def``.

    Combination: **changes apply in plugin order**. Each field of the returned
    :class:`pi_sdk.AfterToolCallResult` that is not ``None`` (``content``, ``details``,
    ``is_error``, ``terminate``) replaces the current value (a replacement, not a merge), and
    the next implementation's ``context`` already shows the result so far. ``None`` keeps the
    result. An exception propagates (pi-mono behaviour) with a note naming the plugin; the Agent
    records it as an error assistant message.

    Args:
        context: A :class:`pi_sdk.AfterToolCallContext`: the fields of
            :class:`pi_sdk.BeforeToolCallContext` plus ``result`` (the tool's result so far)
            and ``is_error``.
        signal: The run's abort signal.

    Returns:
        ``None`` or a :class:`pi_sdk.AfterToolCallResult` (or an awaitable of either).
    """


@hookspec
def prepare_request(
    request: PrepareRequestContext, signal: AbortSignal | None
) -> AgentRequestUpdate | None | Awaitable[AgentRequestUpdate | None]:
    """Change course before an agent's model request (pi-agent-core 1.6 ``prepareRequest``).

    Called by the agent loop immediately before every model request of every run (the first,
    each later turn and each retry), after the pending messages were added and after the
    Agent's own ``prepare_request`` callable. For routing (a cheaper model for short turns, a
    larger window when the context grew), compaction, or injecting context. May be
    ``async def``.

    Combination: **updates apply in plugin order**. Each field of the returned
    :class:`pi_sdk.agent.AgentRequestUpdate` that is not ``None`` (``context``, ``model``,
    ``thinking_level``) replaces the run's value for this request and the later ones, and the
    next implementation's ``request`` already shows it. ``None`` changes nothing. An exception
    ends the run with an error assistant message (the error names the plugin).

    Args:
        request: A :class:`pi_sdk.agent.PrepareRequestContext`: ``context`` (the working
            context; do not mutate it, return a new one), ``model``, ``thinking_level``.
        signal: The run's abort signal.

    Returns:
        ``None`` or an :class:`pi_sdk.agent.AgentRequestUpdate` (or an awaitable of either).
    """


@hookspec
def finish_turn(
    turn: AgentTurnContext, signal: AbortSignal | None
) -> AgentTurnDecision | None | Awaitable[AgentTurnDecision | None]:
    """Decide whether an agent run goes on after a turn (pi-agent-core 1.6 ``finishTurn``).

    Called by the agent loop after each turn's assistant message and tool results, before its
    ``turn_end``, after the Agent's own ``finish_turn`` callable (unless that one answered
    ``"end"``). For budgets, turn caps, stop conditions. May be ``async def``.

    Combination: **any "end" wins**: the first ``"end"`` ends the run after this turn (later
    plugins are not asked; queued messages stay queued). Otherwise a ``"continue"`` asks for one
    more request even when the model stopped (satisfied by tool results, steering or follow-ups
    when there are some). ``None`` keeps the normal scheduling. A turn that failed (``error`` /
    ``aborted``) ends the run whatever the answer. An answer other than these, or an exception,
    ends the run with an error assistant message (the error names the plugin).

    Args:
        turn: A :class:`pi_sdk.agent.AgentTurnContext`: ``message`` (the turn's assistant
            message), ``tool_results``, ``context`` and ``new_messages`` (do not mutate them).
        signal: The run's abort signal.

    Returns:
        ``None``, ``"continue"`` or ``"end"`` (or an awaitable of one).
    """


@hookspec
def register_message_types(register: Callable[..., None]) -> None:
    """Register custom agent message types with their ``convert_to_llm`` mapping.

    A custom message lives in the agent transcript as its own type (and in session JSON, where
    its ``role`` selects the type on load); the model sees only what ``convert_to_llm`` makes
    of it. Use it for e.g. a bash-execution record or a compaction summary shown to the model as
    a user message. Called when the plugin is registered into the active plugin manager (or
    when its manager becomes active); the types leave the registry with the plugin.

    Args:
        register: ``register(message_type, convert_to_llm)``. ``message_type`` is a pydantic
            model with a ``role: Literal["<your-role>"]`` field (a role other than ``user``,
            ``assistant``, ``toolResult``; pick a distinctive one, e.g. ``"bashExecution"``).
            ``convert_to_llm(message) -> list[pi_sdk.Message]`` maps one such message to what
            the model sees; an empty list hides it. It must not raise. Registering the same
            pair twice is a no-op; another type for a taken role raises
            ``ConfigurationError``.
    """


@hookspec
def on_model_call(
    model: Model, context: Context, options: StreamOptions, run_id: str | None
) -> Callable[[AssistantMessage], None] | None:
    """Observe one model call: told when it starts, handed its final message when it ends.

    Called for every call made through :func:`pi_sdk.stream` (and so ``complete``, the Agent's
    default model calls), when its stream is first read: the moment the request is about to be
    sent (retries happen inside one call). For tracing, metrics and logs; it cannot change the
    call (``on_payload`` can). A custom ``stream_fn`` that does not go through
    :func:`pi_sdk.stream` is not observed. Must be a plain ``def``.

    Combination: every implementation is called, in plugin order; each may return a callable,
    and every callable returned is called once, in the same order, with the call's final
    :class:`pi_sdk.AssistantMessage` when the stream ends: ``done``, ``error``, ``aborted``
    (``stop_reason``, ``error_message`` and ``usage`` tell which), or closed early by the
    consumer (``stop_reason`` ``"aborted"``). An exception raised by an implementation or by its
    callable is logged (logger ``pi_sdk.plugins``) and ignored: an observer never breaks a call.

    Args:
        model: The model called.
        context: The request: system prompt, messages, tools (do not mutate it).
        options: The call's options (``max_tokens``, ``temperature``, ``session_id``, ...);
            ``api_key`` may hold a secret: never record it.
        run_id: The :meth:`on_agent_event` run id of the agent run making the call (set for
            the Agent's and ``agent_loop``'s model calls, and for calls made inside their
            tools), else ``None``.

    Returns:
        ``None``, or a callable ``finish(message)`` called once with the final message.
    """


@hookspec
def on_agent_event(event: AgentEvent, run_id: str, model: Model) -> None | Awaitable[None]:
    """Observe every event of every agent run, in order (pi-mono ``AgentEvent``).

    Called by the agent loop (:class:`pi_sdk.Agent`, ``agent_loop``) for each event it emits,
    ``agent_start`` to ``agent_end`` (``message_update`` per streamed delta included), before
    the Agent's listeners see it, one event at a time. For tracing and logs of every run in the
    process without subscribing to each Agent. May be ``async def`` (it is awaited: keep it
    quick, the run waits for it).

    Combination: every implementation is called, in plugin order; return values are ignored.
    An exception is logged (logger ``pi_sdk.plugins``) and ignored: an observer never breaks a
    run.

    Args:
        event: The event (``pi_sdk.AgentEvent``); do not mutate it.
        run_id: A unique id of the run (32 hex digits), the same for all its events; the
            ``run_id`` given to :meth:`on_model_call` for the run's model calls.
        model: The run's model (``AgentLoopConfig.model``).
    """
