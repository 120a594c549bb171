"""The scope of one call: what the layers above hand the stream machinery (layer 1).

The stream machinery sits below the plugins and the model registry, so it never asks them
anything itself. Whoever starts a call (:func:`pi_sdk.stream`, a ``Models`` collection) puts
what the call needs from them into a :class:`CallScope`:

* ``api_key``: the key lookup for a provider id (the ``get_api_key`` hooks of the collection);
* ``payload_hooks``: the hooks that may inspect or replace the payload before it is sent
  (``on_payload`` plugins, then ``StreamOptions.on_payload``; pi-mono ``onPayload``);
* ``activity``: the call's wire activity (:class:`~pi_sdk._stream.activity.Activity`);
* ``gate``: what each attempt waits for before its request is sent (a client-side rate
  limiter's permit, :class:`Permit`), or ``None``.

The core's read loop calls ``payload_hooks`` itself. While a provider's code runs before the
reply started (a call function, or a stream function up to its first event), the scope is in
:data:`current_scope`, where :func:`pi_sdk.provider.resolve_api_key`,
:func:`pi_sdk.provider.apply_payload_hooks` and
:class:`~pi_sdk._stream.response_body.ResponseBody` find it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, Protocol, TypeAlias

from pi_sdk._stream.activity import Activity
from pi_sdk.options import StreamOptions
from pi_sdk.types import Model

__all__ = ["CallScope", "Gate", "KeyLookup", "PayloadHooks", "Permit", "current_scope"]

KeyLookup: TypeAlias = Callable[[str], "str | None"]
"""``api_key(provider_id)``: the key for a provider id, or ``None`` (no key known)."""

PayloadHooks: TypeAlias = Callable[
    [dict[str, Any], Model, StreamOptions], Awaitable[dict[str, Any]]
]
"""``await payload_hooks(payload, model, options)``: the payload to send (the same dict, changed
in place, or a replacement). Raises what a hook raises (``TypeError`` for a hook that returned
neither ``None`` nor a dict): the call then ends in an ``error`` event and nothing is sent."""


class Permit(Protocol):
    """Leave to send one attempt's request, from a gate (a client-side rate limiter)."""

    def started(self) -> None:
        """The reply started: the server has the request (called at most once)."""

    def finished(self, message: Any, failure: BaseException | None) -> None:
        """The attempt ended (called exactly once).

        ``message``: its final message (``None`` for a retried attempt); ``failure``: the
        exception that ended it, if any (an HTTP 429's wait is in it).
        """


Gate: TypeAlias = Callable[[], Awaitable[Permit]]
"""``await gate()``: wait (in turn) until one request may be sent, then hold the permit. The
wait is cancelled when the call is aborted."""


class CallScope:
    """What one call reads from the collection that started it.

    Args:
        api_key: The key lookup (``None``: the default registry's ``get_api_key`` hooks).
        payload_hooks: The payload hooks (``None``: none run; :func:`pi_sdk.stream` always
            passes the plugins' and the options' hooks).
        gate: Awaited before each attempt's request (``None``: send at once).
    """

    __slots__ = ("activity", "api_key", "gate", "payload_hooks")

    def __init__(
        self,
        *,
        api_key: KeyLookup | None = None,
        payload_hooks: PayloadHooks | None = None,
        gate: Gate | None = None,
    ) -> None:
        self.api_key = api_key
        self.payload_hooks = payload_hooks
        self.gate = gate
        self.activity = Activity()
        """The call's wire activity (the idle timeout and the abort read it)."""


current_scope: ContextVar[CallScope | None] = ContextVar("pi_sdk_call_scope", default=None)
"""The scope of the call whose provider code is running before its reply started (``None``
outside a call, and while the core only reads the reply)."""
