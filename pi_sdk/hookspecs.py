"""The plugin contract: pluggy hook specifications (the plugin reference).

Plugins are distributions with an entry point in the ``pi_sdk`` group whose module defines
functions marked ``@pi_sdk.hookimpl`` with these names. Every hook is called with keyword
arguments only; an implementation may accept any subset of them (pluggy), so specs can grow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from .types import Model

__all__ = ["hookimpl", "hookspec"]

hookspec = pluggy.HookspecMarker("pi_sdk")
hookimpl = pluggy.HookimplMarker("pi_sdk")


@hookspec
def register_api_providers(register: Callable[..., None]) -> None:
    """Register wire-API implementations.

    Call ``register(ApiProvider(api=..., stream=...))`` once per API the plugin implements.
    A second provider for the same ``api`` is rejected unless ``register(provider, replace=True)``.
    The provider's ``stream`` must import its vendor SDK lazily (importing ``pi_sdk`` and the
    plugin's top-level module must stay cheap).
    """


@hookspec
def register_models(register: Callable[..., None]) -> None:
    """Register catalog models: call ``register(model)`` with a :class:`pi_sdk.Model` each.

    Models are keyed by ``(provider, id)``; a later registration of the same key replaces the
    earlier one only with ``register(model, replace=True)``.
    """


@hookspec(firstresult=True)
def get_api_key(provider: str) -> str | None:
    """Return the API key for ``provider`` (e.g. from the environment), or ``None``.

    The first non-``None`` answer wins. An explicit ``StreamOptions.api_key`` always wins over
    every plugin.
    """


@hookspec
def on_payload(payload: dict[str, Any], model: Model) -> dict[str, Any] | None:
    """Inspect or change the request body just before it is sent.

    Mutate ``payload`` in place or return a replacement dict; plugins run in registration
    order, each seeing the previous one's result, then ``StreamOptions.on_payload`` runs last.
    An implementation may be ``async def``; its awaitable is awaited.
    """


@hookspec
def before_tool_call(context: Any) -> Any:
    """Inspect a validated tool call before it runs; may block it.

    ``context`` is a :class:`pi_sdk.BeforeToolCallContext`. Return ``None`` to allow, or a
    :class:`pi_sdk.BeforeToolCallResult` with ``block=True`` and a ``reason``. Any blocking answer
    wins, with its reason (the first in plugin order); the call becomes an error tool result the
    model can read. An implementation may be ``async def``.
    """


@hookspec
def after_tool_call(context: Any) -> Any:
    """Inspect or change a tool result after it ran.

    ``context`` is a :class:`pi_sdk.AfterToolCallContext`. Return ``None`` to keep the result, or
    a :class:`pi_sdk.AfterToolCallResult` whose set fields (``content``, ``details``,
    ``is_error``, ``terminate``) replace the result's. Answers apply in plugin order, each on top
    of the previous. An implementation may be ``async def``.
    """


@hookspec
def register_message_types(register: Callable[..., None]) -> None:
    """Register custom agent message types.

    Call ``register(message_type, convert_to_llm)`` where ``message_type`` is a pydantic model
    with a ``role`` ``Literal`` field other than ``user``/``assistant``/``toolResult`` and
    ``convert_to_llm(message) -> list[Message]`` maps one such message to what the model sees
    (an empty list hides it from the model). The transcript keeps the custom type.
    """
